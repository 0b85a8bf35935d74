package dev.sgm.tck;

/**
 * The contract's §3 "Relevance" rules: what {@code text} finds (plain questions, stemming,
 * identifiers), how it ranks, that every other criterion filters before ranking, {@code scores},
 * {@code total}, deletions and updates, paging under writes, read-your-writes, the {@code mode}
 * field and its errors, bad {@code text}, and discovery's {@code retrieval} object. Extend this
 * class and give the client; every area runs against it.
 *
 * <p>The suite runs against an implementation whose discovery advertises retrieval (a {@code
 * retrieval} object, which the contract's §4 does not require); against one that does not, every
 * test is skipped with that reason. Tests of lexical behaviour ask for {@code mode: text}; tests
 * that hold in every mode run once per mode that discovery advertises; semantic and hybrid tests
 * are skipped, with the reason, when the mode is not advertised.
 *
 * <p>The areas extend one another, this class last, on {@link RelevanceFixture}: what text finds
 * ({@link RelevanceTextTck}), filters before ranking ({@link RelevanceFiltersTck}), scores and
 * total ({@link RelevanceScoresTck}), searches beside writes ({@link RelevanceWritesTck}), the
 * request's mode and text ({@link RelevanceInputTck}), and semantic and hybrid modes with discovery
 * ({@link RelevanceModesTck}). They are not nested here for the reason {@link ContractTck} gives:
 * build tools run every test a class inherits, but not always the tests nested in a class it
 * inherits.
 */
public abstract class RelevanceTck extends RelevanceModesTck {}
