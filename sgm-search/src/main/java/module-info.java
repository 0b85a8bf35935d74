/**
 * The search index behind relevance retrieval: derived state, rebuilt from storage when missing,
 * fed in the storage's commit order. Lucene BM25 over title, tags and content with English
 * analysis, HNSW vectors for semantic search, and every retrieve criterion as a filter inside the
 * index query.
 */
module dev.sgm.search {
  requires org.apache.lucene.core;
  requires org.apache.lucene.analysis.common;

  exports dev.sgm.search;
}
