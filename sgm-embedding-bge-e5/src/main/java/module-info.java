/**
 * The {@code bge-e5-small} embedder: the quantised bge-small-en-v1.5 and e5-small-v2 models side by
 * side, run in process with ONNX Runtime, offline (the models ship inside their jars).
 */
module dev.sgm.embedding.pair {
  requires dev.sgm.api;
  // bge, and how a model is run (ONNX Runtime, the tokenizer and their logging come with it).
  requires dev.sgm.embedding.bge;
  // The second model's jar: its ONNX file and tokenizer are read from there.
  requires langchain4j.embeddings.e5.small.v2.q;

  provides dev.sgm.api.spi.EmbedderProvider with
      dev.sgm.embedding.pair.BgeE5EmbedderProvider;
}
