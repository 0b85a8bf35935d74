package dev.sgm.embedding.bge;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import dev.sgm.api.spi.Embedder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The quantised bge-small-en-v1.5 model in process, in two ONNX Runtime sessions shared by every
 * caller: one for queries, run on two threads (a short query is many small operations, and two
 * threads halve its wait), and one for passages, run by one worker per processor with one thread
 * each (a third more texts per second than one run on two threads). Each has its own workers, so a
 * search never waits behind passages being embedded, and concurrent callers queue instead of
 * multiplying threads beyond the cores.
 */
final class BgeEmbedder implements Embedder {
  static final String MODEL = "bge-small-en-v1.5-q";
  static final int DIMENSIONS = 384;

  /**
   * How to read this model's cosines: a record matches by meaning from 0.5; a question none of
   * whose words is held is about something stored only if its closest record reaches 0.6; meaning
   * and words weigh alike (docs/spec/retrieval.md, 6, says how each was chosen on data).
   */
  static final Calibration CALIBRATION = new Calibration(0.5, 0.6, 0.5);

  /** The instruction bge models expect before a query (and not before a passage). */
  static final String QUERY_PREFIX = "Represent this sentence for searching relevant passages: ";

  // Files inside the model's jar (outside any package, so readable from another module).
  private static final String MODEL_FILE = "/bge-small-en-v1.5-q.onnx";
  private static final String TOKENIZER_FILE = "/bge-small-en-v1.5-q-tokenizer.json";

  // The ids of [CLS] and [SEP] in the model's (bert-base-uncased) vocabulary: the whole encoding of
  // a text with no tokens.
  private static final long CLS = 101;
  private static final long SEP = 102;

  // DJL reports at WARNING what is expected here (no GPU, a tokenizer without a maximum length),
  // which would reach every command's standard error; its errors still show. Held here because
  // java.util.logging keeps loggers only while they are referenced.
  private static final Logger DJL_LOG = Logger.getLogger("ai.djl");

  private final BgeSettings settings;
  private final OrtSession querySession;
  private final OrtSession passageSession;
  private final Model queryModel;
  private final Model passageModel;
  private final ThreadPoolExecutor queryWorkers;
  private final ThreadPoolExecutor passageWorkers;
  private final float[] blank;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Guards {@link #queriesWaiting}: the queries asked for and not yet answered. */
  private final Object queryGate = new Object();

  private int queriesWaiting;

  private BgeEmbedder(
      BgeSettings settings,
      OrtEnvironment environment,
      OrtSession querySession,
      OrtSession passageSession) {
    this.settings = settings;
    this.querySession = querySession;
    this.passageSession = passageSession;
    this.queryModel = model(environment, querySession);
    this.passageModel = model(environment, passageSession);
    this.blank = emptyTextVector(environment, passageSession);
    this.queryWorkers = workers("query", settings.queryWorkers());
    this.passageWorkers = workers("passage", settings.workers());
  }

  private static Model model(OrtEnvironment environment, OrtSession session) {
    try (InputStream tokenizer = open(TOKENIZER_FILE)) {
      return new Model(new OnnxBertBiEncoder(environment, session, tokenizer, PoolingMode.CLS));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ThreadPoolExecutor workers(String kind, int count) {
    AtomicLong threads = new AtomicLong();
    ThreadPoolExecutor workers =
        new ThreadPoolExecutor(
            count,
            count,
            1,
            TimeUnit.MINUTES,
            new LinkedBlockingQueue<>(),
            task ->
                Thread.ofPlatform()
                    .daemon()
                    .name(BgeEmbedderProvider.NAME + "-" + kind + "-" + threads.incrementAndGet())
                    .unstarted(task));
    // Idle workers go away after a minute; the sessions stay.
    workers.allowCoreThreadTimeOut(true);
    return workers;
  }

  /** Loads the model from its jar (no network) and starts the workers. */
  static BgeEmbedder load(BgeSettings settings) {
    // DJL, under the tokenizer, otherwise looks for a GPU build to download and reports use to
    // its makers when it runs on a cloud machine; this plugin promises to stay offline.
    if (System.getProperty("ai.djl.offline") == null) {
      System.setProperty("ai.djl.offline", "true");
    }
    if (DJL_LOG.getLevel() == null) {
      DJL_LOG.setLevel(Level.SEVERE);
    }
    OrtEnvironment environment = OrtEnvironment.getEnvironment();
    byte[] onnx;
    try (InputStream in = open(MODEL_FILE)) {
      onnx = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // Intra-op threads keep spinning between operations (ONNX Runtime's default): without it
    // each of a short query's many small operations waits for threads to wake (see BgeSettings).
    OrtSession querySession = session(environment, onnx, settings.intraOpThreads());
    OrtSession passageSession;
    try {
      passageSession = session(environment, onnx, 1);
    } catch (RuntimeException e) {
      closeQuietly(querySession);
      throw e;
    }
    try {
      return new BgeEmbedder(settings, environment, querySession, passageSession);
    } catch (RuntimeException e) {
      closeQuietly(querySession);
      closeQuietly(passageSession);
      throw e;
    }
  }

  private static OrtSession session(OrtEnvironment environment, byte[] onnx, int threads) {
    try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
      options.setIntraOpNumThreads(threads);
      options.setInterOpNumThreads(1);
      options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
      options.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_ERROR);
      return environment.createSession(onnx, options);
    } catch (OrtException e) {
      throw new IllegalStateException(MODEL + ": the model could not be loaded: " + e, e);
    }
  }

  @Override
  public String model() {
    return MODEL;
  }

  @Override
  public int dimensions() {
    return DIMENSIONS;
  }

  @Override
  public Calibration calibration() {
    return CALIBRATION;
  }

  @Override
  public List<float[]> embedPassages(List<String> texts) {
    List<float[]> vectors = new ArrayList<>(texts.size());
    // One batch at a time: another caller's batch, queued meanwhile, is served between two of ours.
    for (int from = 0; from < texts.size(); from += settings.batchSize()) {
      List<FutureTask<float[]>> batch = new ArrayList<>();
      for (String text : texts.subList(from, Math.min(texts.size(), from + settings.batchSize()))) {
        String clipped = clip(text);
        batch.add(schedule(passageWorkers, () -> embedPassage(clipped)));
      }
      try {
        for (FutureTask<float[]> job : batch) {
          vectors.add(await(job));
        }
      } finally {
        batch.forEach(job -> job.cancel(false));
      }
    }
    return vectors;
  }

  @Override
  public float[] embedQuery(String text) {
    String clipped = clip(text);
    String asked = clipped.isBlank() ? clipped : QUERY_PREFIX + clipped;
    synchronized (queryGate) {
      queriesWaiting++;
    }
    try {
      return await(schedule(queryWorkers, () -> embed(queryModel, asked)));
    } finally {
      synchronized (queryGate) {
        queriesWaiting--;
        queryGate.notifyAll();
      }
    }
  }

  /**
   * Runs on a passage worker: a passage starts only while no query is being embedded, so that a
   * query has the processors to itself except for passages already running when it came.
   */
  private float[] embedPassage(String text) {
    synchronized (queryGate) {
      while (queriesWaiting > 0 && !closed.get()) {
        try {
          queryGate.wait(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new CancellationException("interrupted while waiting for queries");
        }
      }
    }
    return embed(passageModel, text);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      // Texts still queued are cancelled, so their callers are answered rather than left waiting.
      for (ThreadPoolExecutor workers : List.of(queryWorkers, passageWorkers)) {
        workers.shutdownNow().forEach(task -> ((FutureTask<?>) task).cancel(false));
      }
      try {
        queryWorkers.awaitTermination(10, TimeUnit.SECONDS);
        passageWorkers.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      closeQuietly(querySession);
      closeQuietly(passageSession);
    }
  }

  /** Runs on a worker: the unit vector of one text. */
  private float[] embed(Model model, String text) {
    if (text.isBlank()) {
      return blank.clone();
    }
    try {
      return unit(model.embed(text).content().vector());
    } catch (IllegalArgumentException noTokens) {
      // langchain4j refuses a text the tokenizer keeps nothing of (only control characters, say).
      return blank.clone();
    }
  }

  private static FutureTask<float[]> schedule(ThreadPoolExecutor workers, Callable<float[]> work) {
    FutureTask<float[]> job = new FutureTask<>(work);
    try {
      workers.execute(job);
    } catch (RejectedExecutionException e) {
      throw new IllegalStateException(MODEL + " is closed", e);
    }
    return job;
  }

  private static float[] await(FutureTask<float[]> job) {
    try {
      return job.get();
    } catch (InterruptedException e) {
      job.cancel(false);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while embedding", e);
    } catch (CancellationException e) {
      throw new IllegalStateException(MODEL + " is closed", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(MODEL + ": embedding failed: " + e.getCause(), e.getCause());
    }
  }

  /** The start of a long text, so that one text costs at most about one model window. */
  private String clip(String text) {
    int max = settings.maxChars();
    if (text.length() <= max) {
      return text;
    }
    return text.substring(0, Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max);
  }

  /** Scales a vector to length 1, so that the dot product of two is their cosine. */
  static float[] unit(float[] vector) {
    double sum = 0;
    for (float v : vector) {
      sum += (double) v * v;
    }
    if (sum == 0) {
      return vector;
    }
    float scale = (float) (1 / Math.sqrt(sum));
    for (int i = 0; i < vector.length; i++) {
      vector[i] *= scale;
    }
    return vector;
  }

  /**
   * What the model makes of a text with no words ([CLS] [SEP] alone): the vector of a blank text,
   * computed once, since langchain4j refuses to embed one.
   */
  private static float[] emptyTextVector(OrtEnvironment environment, OrtSession session) {
    long[] shape = {1, 2};
    try (OnnxTensor ids =
            OnnxTensor.createTensor(environment, LongBuffer.wrap(new long[] {CLS, SEP}), shape);
        OnnxTensor mask =
            OnnxTensor.createTensor(environment, LongBuffer.wrap(new long[] {1, 1}), shape);
        OnnxTensor types =
            OnnxTensor.createTensor(environment, LongBuffer.wrap(new long[] {0, 0}), shape)) {
      Map<String, OnnxTensor> inputs = new HashMap<>();
      inputs.put("input_ids", ids);
      inputs.put("attention_mask", mask);
      if (session.getInputNames().contains("token_type_ids")) {
        inputs.put("token_type_ids", types);
      }
      try (OrtSession.Result result = session.run(inputs)) {
        float[][][] hidden = (float[][][]) result.get(0).getValue();
        return unit(hidden[0][0].clone());
      }
    } catch (OrtException e) {
      throw new IllegalStateException(MODEL + ": the model could not be run: " + e, e);
    }
  }

  private static InputStream open(String file) {
    // A class literal does not initialise the class: its static initialiser would load a second
    // session with ONNX Runtime's default threads.
    InputStream in = BgeSmallEnV15QuantizedEmbeddingModel.class.getResourceAsStream(file);
    if (in == null) {
      throw new IllegalStateException(MODEL + ": " + file + " is missing from the model's jar");
    }
    return in;
  }

  private static void closeQuietly(OrtSession session) {
    try {
      session.close();
    } catch (OrtException e) {
      // Nothing more can be released.
    }
  }

  /** langchain4j's model over this session; it is only handed single texts. */
  private static final class Model extends AbstractInProcessEmbeddingModel {
    private final OnnxBertBiEncoder encoder;

    Model(OnnxBertBiEncoder encoder) {
      // The executor would parallelise a list of texts; single texts are embedded in the caller.
      super(Runnable::run);
      this.encoder = encoder;
    }

    @Override
    protected OnnxBertBiEncoder model() {
      return encoder;
    }

    @Override
    protected Integer knownDimension() {
      return DIMENSIONS;
    }
  }
}
