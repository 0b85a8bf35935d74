package dev.sgm.search;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * The English analysis records and queries share: Unicode word boundaries (so {@code user_id},
 * {@code v1.2} and {@code HikariCP} stay one word each, found as typed), lower case, possessives
 * dropped, common function words dropped, Porter stemming ({@code connections} finds {@code
 * connection}). Kept in one place because a record and a query must be split alike.
 */
public final class TextAnalysis {
  /** Longer words are cut, so a pasted blob cannot make one huge term. */
  static final int MAX_TOKEN_LENGTH = 64;

  /**
   * Words too common to say what a text is about, including the question words agents ask with
   * ("what did we decide about ..."): the classic English function-word list, and "use", which
   * questions about tools nearly always hold ("which database do we use") and which says nothing of
   * the tool.
   */
  static final CharArraySet STOP_WORDS =
      CharArraySet.unmodifiableSet(
          new CharArraySet(
              List.of(
                  "a",
                  "about",
                  "above",
                  "after",
                  "again",
                  "against",
                  "all",
                  "am",
                  "an",
                  "and",
                  "any",
                  "are",
                  "as",
                  "at",
                  "be",
                  "because",
                  "been",
                  "before",
                  "being",
                  "below",
                  "between",
                  "both",
                  "but",
                  "by",
                  "can",
                  "could",
                  "did",
                  "do",
                  "does",
                  "doing",
                  "down",
                  "during",
                  "each",
                  "few",
                  "for",
                  "from",
                  "further",
                  "had",
                  "has",
                  "have",
                  "having",
                  "he",
                  "her",
                  "here",
                  "hers",
                  "herself",
                  "him",
                  "himself",
                  "his",
                  "how",
                  "i",
                  "if",
                  "in",
                  "into",
                  "is",
                  "it",
                  "its",
                  "itself",
                  "just",
                  "me",
                  "more",
                  "most",
                  "my",
                  "myself",
                  "no",
                  "nor",
                  "not",
                  "now",
                  "of",
                  "off",
                  "on",
                  "once",
                  "only",
                  "or",
                  "other",
                  "our",
                  "ours",
                  "ourselves",
                  "out",
                  "over",
                  "own",
                  "same",
                  "she",
                  "should",
                  "so",
                  "some",
                  "such",
                  "than",
                  "that",
                  "the",
                  "their",
                  "theirs",
                  "them",
                  "themselves",
                  "then",
                  "there",
                  "these",
                  "they",
                  "this",
                  "those",
                  "through",
                  "to",
                  "too",
                  "under",
                  "until",
                  "up",
                  "us",
                  "use",
                  "used",
                  "uses",
                  "using",
                  "very",
                  "was",
                  "we",
                  "were",
                  "what",
                  "when",
                  "where",
                  "which",
                  "while",
                  "who",
                  "whom",
                  "why",
                  "will",
                  "with",
                  "would",
                  "you",
                  "your",
                  "yours",
                  "yourself",
                  "yourselves"),
              false));

  /** The analyzer of the index's text fields. */
  static final Analyzer ANALYZER = new English(true);

  /** The same analysis without dropping function words, for a query made only of them. */
  static final Analyzer KEEPING_STOP_WORDS = new English(false);

  private TextAnalysis() {}

  private static final class English extends Analyzer {
    private final boolean dropStopWords;

    English(boolean dropStopWords) {
      this.dropStopWords = dropStopWords;
    }

    @Override
    protected TokenStreamComponents createComponents(String fieldName) {
      StandardTokenizer source = new StandardTokenizer();
      source.setMaxTokenLength(MAX_TOKEN_LENGTH);
      TokenStream stream = new EnglishPossessiveFilter(source);
      stream = new LowerCaseFilter(stream);
      if (dropStopWords) {
        stream = new StopFilter(stream, STOP_WORDS);
      }
      stream = new PorterStemFilter(stream);
      return new TokenStreamComponents(source, stream);
    }

    @Override
    protected TokenStream normalize(String fieldName, TokenStream in) {
      return new LowerCaseFilter(in);
    }
  }

  /** The distinct analysed terms of {@code text}, in order of first appearance. */
  public static List<String> terms(String text) {
    List<String> terms = terms(ANALYZER, text);
    return terms.isEmpty() ? terms(KEEPING_STOP_WORDS, text) : terms;
  }

  private static List<String> terms(Analyzer analyzer, String text) {
    Set<String> terms = new LinkedHashSet<>();
    try (TokenStream stream = analyzer.tokenStream("content", text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        terms.add(term.toString());
      }
      stream.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrayList<>(terms);
  }
}
