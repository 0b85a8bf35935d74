package dev.sgm.embedding.bge;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
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
import java.util.concurrent.Future;
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
 * One BERT-style sentence model in process (ONNX, read from its jar), in two ONNX Runtime sessions
 * shared by every caller: one for queries, run by {@code processors ÷ intra-op threads} workers (a
 * short query is many small operations, and two threads halve its wait), and one for passages, run
 * by one worker per processor with one thread each (a third more texts per second than one run on
 * two threads). Each has its own workers, so a search never waits behind passages being embedded,
 * and concurrent callers queue instead of multiplying threads beyond the cores (for each model: an
 * embedder that runs two runs the workers of both). Vectors are of unit length.
 */
public final class OnnxModel implements AutoCloseable {
  /**
   * Where a model is and how its vector is read.
   *
   * @param name the model's name, for messages
   * @param anchor a class of the jar that holds the model, whose loader reads its files
   * @param onnxFile the ONNX file, at the root of that jar
   * @param tokenizerFile the tokenizer, at the root of that jar
   * @param pooling how the tokens' states make the text's vector
   * @param dimensions the vector's length
   */
  public record Spec(
      String name,
      Class<?> anchor,
      String onnxFile,
      String tokenizerFile,
      Pooling pooling,
      int dimensions) {}

  /** How a text's vector is made of its tokens' last hidden states. */
  public enum Pooling {
    /** The state of the first token ([CLS]). */
    CLS,
    /** The mean of every token's state. */
    MEAN
  }

  // The ids of [CLS] and [SEP] in the (bert-base-uncased) vocabulary of the models run here: the
  // whole encoding of a text with no tokens.
  private static final long CLS = 101;
  private static final long SEP = 102;

  // DJL reports at WARNING what is expected here (no GPU, a tokenizer without a maximum length),
  // which would reach every command's standard error; its errors still show. Held here because
  // java.util.logging keeps loggers only while they are referenced.
  private static final Logger DJL_LOG = Logger.getLogger("ai.djl");

  private final Spec spec;
  private final ModelSettings settings;
  private final QueryGate gate;
  private final OrtEnvironment environment;
  private final ThreadPoolExecutor queryWorkers;
  private final ThreadPoolExecutor passageWorkers;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Guards the opening and closing of the sessions. */
  private final Object sessions = new Object();

  // Each opens when first needed (or at openSessions()): a short command that only asks, or only
  // stores, reads the model once.
  private volatile Session querySession;
  private volatile Session passageSession;

  /** The blank text's vector, from the first session opened. */
  private volatile float[] blank;

  /** One ONNX Runtime session of the model, with langchain4j's encoder over it. */
  private record Session(OrtSession session, Encoder encoder) {}

  private OnnxModel(Spec spec, ModelSettings settings, QueryGate gate, OrtEnvironment environment) {
    this.spec = spec;
    this.settings = settings;
    this.gate = gate;
    this.environment = environment;
    this.queryWorkers = workers(spec.name() + "-query", settings.queryWorkers());
    this.passageWorkers = workers(spec.name() + "-passage", settings.workers());
  }

  private Encoder encoder(OrtSession session) {
    try (InputStream tokenizer = open(spec.tokenizerFile())) {
      PoolingMode pooling = spec.pooling() == Pooling.CLS ? PoolingMode.CLS : PoolingMode.MEAN;
      return new Encoder(new OnnxBertBiEncoder(environment, session, tokenizer, pooling), spec);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ThreadPoolExecutor workers(String name, int count) {
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
                    .name(name + "-" + threads.incrementAndGet())
                    .unstarted(task));
    // Idle workers go away after a minute; the sessions stay.
    workers.allowCoreThreadTimeOut(true);
    return workers;
  }

  /**
   * The model in its jar (read with no network), with its workers started; its sessions open when
   * first needed, or at {@link #openSessions}. Its queries hold back the passages of every model
   * sharing {@code gate}.
   */
  public static OnnxModel create(Spec spec, ModelSettings settings, QueryGate gate) {
    // DJL, under the tokenizer, otherwise looks for a GPU build to download and reports use to
    // its makers when it runs on a cloud machine; this plugin promises to stay offline.
    if (System.getProperty("ai.djl.offline") == null) {
      System.setProperty("ai.djl.offline", "true");
    }
    if (DJL_LOG.getLevel() == null) {
      DJL_LOG.setLevel(Level.SEVERE);
    }
    return new OnnxModel(spec, settings, gate, OrtEnvironment.getEnvironment());
  }

  /**
   * Opens both sessions now, reading the model from its jar once for the two (a server does, off
   * the path of its start and of its first query).
   */
  public void openSessions() {
    synchronized (sessions) {
      byte[] onnx = null;
      if (querySession == null) {
        onnx = readModel();
        querySession = openSession(onnx, settings.intraOpThreads());
      }
      if (passageSession == null) {
        passageSession = openSession(onnx != null ? onnx : readModel(), 1);
      }
    }
  }

  private Session querySession() {
    Session opened = querySession;
    if (opened == null) {
      synchronized (sessions) {
        if (querySession == null) {
          querySession = openSession(readModel(), settings.intraOpThreads());
        }
        opened = querySession;
      }
    }
    return opened;
  }

  private Session passageSession() {
    Session opened = passageSession;
    if (opened == null) {
      synchronized (sessions) {
        if (passageSession == null) {
          passageSession = openSession(readModel(), 1);
        }
        opened = passageSession;
      }
    }
    return opened;
  }

  /** The model's ONNX file, read from its jar. */
  private byte[] readModel() {
    try (InputStream in = open(spec.onnxFile())) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A new session of the model on {@code threads} intra-op threads (called holding {@link
   * #sessions}). Intra-op threads keep spinning between operations (ONNX Runtime's default):
   * without it each of a short query's many small operations waits for threads to wake (see
   * ModelSettings).
   */
  private Session openSession(byte[] onnx, int threads) {
    if (closed.get()) {
      throw new IllegalStateException(spec.name() + " is closed");
    }
    OrtSession session = session(onnx, threads);
    try {
      Session opened = new Session(session, encoder(session));
      if (blank == null) {
        blank = emptyTextVector(session);
      }
      return opened;
    } catch (RuntimeException e) {
      closeQuietly(session);
      throw e;
    }
  }

  private OrtSession session(byte[] onnx, int threads) {
    try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
      options.setIntraOpNumThreads(threads);
      options.setInterOpNumThreads(1);
      options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
      options.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_ERROR);
      return environment.createSession(onnx, options);
    } catch (OrtException e) {
      throw new IllegalStateException(spec.name() + ": the model could not be loaded: " + e, e);
    }
  }

  /**
   * Starts embedding a query: {@code instruction} (what the model expects before a query, or "")
   * followed by the start of {@code text}. Passages sharing this model's gate wait until it is
   * answered; {@link #result} awaits it.
   */
  public Future<float[]> query(String instruction, String text) {
    String asked = instructed(instruction, text);
    gate.enter();
    FutureTask<float[]> job =
        new FutureTask<>(() -> embed(querySession(), asked)) {
          @Override
          protected void done() {
            gate.leave();
          }
        };
    try {
      queryWorkers.execute(job);
    } catch (RejectedExecutionException e) {
      job.cancel(false);
      throw new IllegalStateException(spec.name() + " is closed", e);
    }
    return job;
  }

  /**
   * Embeds passages, one vector per text in order, each {@code instruction} (what the model expects
   * before a passage, or "") followed by the start of the text.
   */
  public List<float[]> embedPassages(String instruction, List<String> texts) {
    List<float[]> vectors = new ArrayList<>(texts.size());
    // One batch at a time: another caller's batch, queued meanwhile, is served between two of ours.
    for (int from = 0; from < texts.size(); from += settings.batchSize()) {
      List<FutureTask<float[]>> batch = new ArrayList<>();
      for (String text : texts.subList(from, Math.min(texts.size(), from + settings.batchSize()))) {
        String passage = instructed(instruction, text);
        batch.add(schedule(passageWorkers, () -> embedPassage(passage)));
      }
      try {
        for (FutureTask<float[]> job : batch) {
          vectors.add(result(job));
        }
      } finally {
        batch.forEach(job -> job.cancel(false));
      }
    }
    return vectors;
  }

  /** Runs on a passage worker: a passage starts only while no query is being embedded. */
  private float[] embedPassage(String text) {
    gate.awaitNoQueries(closed::get);
    return embed(passageSession(), text);
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
      synchronized (sessions) {
        for (Session session : new Session[] {querySession, passageSession}) {
          if (session != null) {
            closeQuietly(session.session());
          }
        }
      }
    }
  }

  /** Runs on a worker: the unit vector of one text. */
  private float[] embed(Session session, String text) {
    if (text.isBlank()) {
      return blank.clone();
    }
    try {
      return unit(session.encoder().embed(text).content().vector());
    } catch (IllegalArgumentException noTokens) {
      // langchain4j refuses a text the tokenizer keeps nothing of (only control characters, say).
      return blank.clone();
    }
  }

  private FutureTask<float[]> schedule(ThreadPoolExecutor workers, Callable<float[]> work) {
    FutureTask<float[]> job = new FutureTask<>(work);
    try {
      workers.execute(job);
    } catch (RejectedExecutionException e) {
      throw new IllegalStateException(spec.name() + " is closed", e);
    }
    return job;
  }

  /** Awaits a text's vector, {@link #query} or a passage's. */
  public float[] result(Future<float[]> job) {
    try {
      return job.get();
    } catch (InterruptedException e) {
      job.cancel(false);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while embedding", e);
    } catch (CancellationException e) {
      throw new IllegalStateException(spec.name() + " is closed", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          spec.name() + ": embedding failed: " + e.getCause(), e.getCause());
    }
  }

  /**
   * {@code instruction} and the start of {@code text}, or "" when the text has nothing a tokenizer
   * keeps (only spaces, control and format characters): such a text has the blank text's vector
   * whatever the instruction, so that every model of an embedder reads it alike.
   */
  private String instructed(String instruction, String text) {
    String clipped = clip(text);
    boolean wordless =
        clipped
            .codePoints()
            .allMatch(
                c ->
                    Character.isWhitespace(c)
                        || Character.isISOControl(c)
                        || Character.getType(c) == Character.FORMAT);
    return wordless ? "" : instruction + clipped;
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
  private static float[] unit(float[] vector) {
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
  private float[] emptyTextVector(OrtSession session) {
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
        float[][] tokens = ((float[][][]) result.get(0).getValue())[0];
        float[] vector = tokens[0].clone();
        if (spec.pooling() == Pooling.MEAN) {
          for (int i = 0; i < vector.length; i++) {
            vector[i] = (tokens[0][i] + tokens[1][i]) / 2;
          }
        }
        return unit(vector);
      }
    } catch (OrtException e) {
      throw new IllegalStateException(spec.name() + ": the model could not be run: " + e, e);
    }
  }

  private InputStream open(String file) {
    // A class literal does not initialise the class: its static initialiser would load a second
    // session with ONNX Runtime's default threads.
    InputStream in = spec.anchor().getResourceAsStream(file);
    if (in == null) {
      throw new IllegalStateException(
          spec.name() + ": " + file + " is missing from the model's jar");
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

  /** langchain4j's model over one session; it is only handed single texts. */
  private static final class Encoder extends AbstractInProcessEmbeddingModel {
    private final OnnxBertBiEncoder encoder;
    private final int dimensions;

    Encoder(OnnxBertBiEncoder encoder, Spec spec) {
      // The executor would parallelise a list of texts; single texts are embedded in the caller.
      super(Runnable::run);
      this.encoder = encoder;
      this.dimensions = spec.dimensions();
    }

    @Override
    protected OnnxBertBiEncoder model() {
      return encoder;
    }

    @Override
    protected Integer knownDimension() {
      return dimensions;
    }
  }
}
