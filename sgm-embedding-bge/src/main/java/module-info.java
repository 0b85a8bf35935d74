/**
 * The {@code bge-small-en} embedder: the quantised bge-small-en-v1.5 model, run in process with
 * ONNX Runtime, offline (the model ships inside its jar).
 */
module dev.sgm.embedding.bge {
  requires dev.sgm.api;
  requires langchain4j.core;
  requires langchain4j.embeddings;
  // The model's jar: its ONNX file and tokenizer are read from there.
  requires langchain4j.embeddings.bge.small.en.v15.q;
  // Automatic modules read only what is in the module graph, so what they load at run time must be
  // required here: ONNX Runtime, the tokenizer's natives, and the logging facade they both call.
  requires com.microsoft.onnxruntime;
  requires ai.djl.tokenizers;
  requires org.slf4j;
  requires java.logging;

  // How a model is run here, for the plugin that runs bge beside a second model.
  exports dev.sgm.embedding.bge to
      dev.sgm.embedding.pair;

  provides dev.sgm.api.spi.EmbedderProvider with
      dev.sgm.embedding.bge.BgeEmbedderProvider;
}
