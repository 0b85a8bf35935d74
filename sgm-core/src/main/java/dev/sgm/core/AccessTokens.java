package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.TokenStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Bearer tokens: who a request comes from. A token is {@code sgm_<id>_<secret>} with 256 random
 * bits of secret; the storage keeps its id, principal, grants and the SHA-256 of the secret, never
 * the secret, and a presented secret's hash is compared with that hash in constant time. Within one
 * recheck interval a token text that has matched is remembered (in memory only) and compared with
 * the presented text in constant time instead of hashing it again. A static bootstrap token ({@code
 * auth.token}, or the file {@code auth.token-file}, which must be readable by its owner only) acts
 * as the owner, for first start-up. Authentication is on when {@code auth.enabled} is true or a
 * bootstrap token is configured.
 */
public final class AccessTokens {
  /** A token's text: {@code sgm_}, 16 hexadecimal digits of id, {@code _}, 43 of secret. */
  private static final int ID_START = 4;

  private static final int ID_END = ID_START + 16;
  private static final int LENGTH = ID_END + 1 + 43;

  /** How long a checked token is trusted before the storage is asked again (revocation lag). */
  static final Duration RECHECK = Duration.ofSeconds(2);

  /** The principal of the bootstrap token. */
  public static final String BOOTSTRAP_PRINCIPAL = "bootstrap";

  private final Optional<TokenStore> store;
  private final Clock clock;
  private final boolean enabled;
  private final byte[] bootstrapHash;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Checked> recent = new ConcurrentHashMap<>();
  private final FailedAttempts failures;
  private final LongSupplier nanoTime;

  /**
   * A token as last read from the storage, with its grants parsed once rather than per call, and
   * the token text that last matched its hash while this entry is fresh. Hashing the presented
   * secret is most of what authenticating a request costs, so a request presenting that same text
   * again is compared with it (in constant time) instead; a recheck reads the entry again and
   * starts with no matched text, so revocation and expiry take effect as before.
   */
  private static final class Checked {
    final TokenStore.Entry entry;
    final Grants grants;
    final long atNanos;
    volatile String matched;

    Checked(TokenStore.Entry entry, Grants grants, long atNanos) {
      this.entry = entry;
      this.grants = grants;
      this.atNanos = atNanos;
    }

    boolean fresh(long now) {
      return now - atNanos < RECHECK.toNanos();
    }
  }

  AccessTokens(Config config, Optional<TokenStore> store, Clock clock) {
    this(config, store, clock, System::nanoTime);
  }

  /** With the time a recheck is measured in, for tests of the revocation lag. */
  AccessTokens(Config config, Optional<TokenStore> store, Clock clock, LongSupplier nanoTime) {
    this.store = store;
    this.clock = clock;
    this.nanoTime = nanoTime;
    String bootstrap = bootstrapToken(config);
    this.bootstrapHash = bootstrap == null ? null : sha256(bootstrap);
    this.enabled = config.getBoolean("auth.enabled", false) || bootstrap != null;
    int limit = config.getInt(FAILURE_LIMIT, 20);
    if (limit < 1) {
      throw PluginLoader.startupError(FAILURE_LIMIT + ": must be 1 or more, not " + limit);
    }
    this.failures =
        new FailedAttempts(
            limit,
            ChangeFeed.parseDuration(FAILURE_WINDOW, config.get(FAILURE_WINDOW, "60s")),
            System::nanoTime);
  }

  /** How many failed authentications one client address may make within one window. */
  static final String FAILURE_LIMIT = "auth.failure-limit";

  /** The window of {@link #FAILURE_LIMIT}; an address over the limit is refused until it ends. */
  static final String FAILURE_WINDOW = "auth.failure-window";

  private static String bootstrapToken(Config config) {
    Optional<String> file = config.get("auth.token-file");
    if (file.isPresent()) {
      Path path = Path.of(file.get());
      try {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(path);
        if (permissions.stream()
            .anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
          throw PluginLoader.startupError(
              "the token file " + path + " is readable by others; make it private (chmod 600)");
        }
        String token = Files.readString(path, StandardCharsets.UTF_8).strip();
        return checkedBootstrap(token, "auth.token-file");
      } catch (UnsupportedOperationException e) {
        // No POSIX permissions on this file system: nothing to check.
        return readQuietly(path);
      } catch (IOException e) {
        throw PluginLoader.startupError("the token file " + path + " cannot be read");
      }
    }
    return config
        .get("auth.token")
        .map(t -> checkedBootstrap(t.strip(), "auth.token"))
        .orElse(null);
  }

  private static String readQuietly(Path path) {
    try {
      return checkedBootstrap(
          Files.readString(path, StandardCharsets.UTF_8).strip(), "auth.token-file");
    } catch (IOException e) {
      throw PluginLoader.startupError("the token file " + path + " cannot be read");
    }
  }

  private static String checkedBootstrap(String token, String key) {
    if (token.length() < 32) {
      throw PluginLoader.startupError(
          key
              + ": a bootstrap token must be at least 32 characters (128 bits of randomness or more)");
    }
    return token;
  }

  /** True when requests must carry a token. */
  public boolean enabled() {
    return enabled;
  }

  /**
   * The caller a request's {@code Authorization} header names: the owner when authentication is
   * off, else the token's principal with its grants; {@code unauthenticated} when the header is
   * missing, malformed, or names no live token; {@code unavailable} while {@code clientAddress} is
   * refused after too many failures.
   */
  public Caller authenticate(String origin, String authorization, String clientAddress) {
    if (!enabled) {
      return Caller.anonymous(origin);
    }
    failures.check(clientAddress);
    if (authorization == null || authorization.isBlank()) {
      throw unauthenticated("this server needs a token: Authorization: Bearer <token>");
    }
    String token = bearerToken(authorization);
    if (token == null) {
      throw unauthenticated("the Authorization header must be 'Bearer <token>'");
    }
    if (token.length() == LENGTH && token.startsWith("sgm_")) {
      // Text that matched a stored hash is well-formed and not the bootstrap token (that is looked
      // at first), so text equal to it needs neither a check of its form nor a hash.
      Checked recently = recent.get(token.substring(ID_START, ID_END));
      String matched = recently == null ? null : recently.matched;
      if (matched != null && recently.fresh(nanoTime.getAsLong()) && sameText(matched, token)) {
        if (live(recently.entry)) {
          return Caller.authenticated(
              recently.entry.principal(), origin, recently.grants, recently.entry.id());
        }
        failures.failed(clientAddress, origin);
        throw unauthenticated("the token is not valid (malformed, unknown, revoked or expired)");
      }
    }
    if (bootstrapHash != null && MessageDigest.isEqual(sha256(token), bootstrapHash)) {
      return new Caller(Optional.of(BOOTSTRAP_PRINCIPAL), origin, Grants.OWNER);
    }
    if (!wellFormed(token)) {
      failures.failed(clientAddress, origin);
      throw unauthenticated("the token is not valid (malformed, unknown, revoked or expired)");
    }
    Checked checked = checked(token.substring(ID_START, ID_END));
    TokenStore.Entry entry = checked == null ? null : checked.entry;
    byte[] presented = sha256(token.substring(ID_END + 1));
    boolean matches = MessageDigest.isEqual(presented, entry == null ? new byte[32] : entry.hash());
    if (entry == null || !matches || !live(entry)) {
      failures.failed(clientAddress, origin);
      throw unauthenticated("the token is not valid (malformed, unknown, revoked or expired)");
    }
    checked.matched = token;
    return Caller.authenticated(entry.principal(), origin, checked.grants, entry.id());
  }

  /** True when {@code entry} is neither revoked nor expired. */
  private boolean live(TokenStore.Entry entry) {
    return entry.revokedAt() == null
        && (entry.expiresAt() == null || clock.instant().isBefore(entry.expiresAt()));
  }

  /** True for {@code sgm_<16 lowercase hexadecimal digits>_<43 base64url characters>}. */
  private static boolean wellFormed(String token) {
    if (token.length() != LENGTH || !token.startsWith("sgm_") || token.charAt(ID_END) != '_') {
      return false;
    }
    for (int i = ID_START; i < ID_END; i++) {
      char c = token.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    for (int i = ID_END + 1; i < LENGTH; i++) {
      char c = token.charAt(i);
      if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9')
          && c != '-'
          && c != '_') {
        return false;
      }
    }
    return true;
  }

  /**
   * True when the two texts are equal, in a time that depends on their length alone (both are
   * well-formed tokens, of one length), so that timing tells nothing of how much of a secret
   * matched.
   */
  private static boolean sameText(String a, String b) {
    if (a.length() != b.length()) {
      return false;
    }
    int difference = 0;
    for (int i = 0; i < a.length(); i++) {
      difference |= a.charAt(i) ^ b.charAt(i);
    }
    return difference == 0;
  }

  /**
   * The token of {@code Bearer <token>} (the scheme in any case, any whitespace between), or null.
   * Parsed by hand: this runs on every request, and a regular expression would be compiled each
   * time.
   */
  private static String bearerToken(String authorization) {
    int last = authorization.length() - 1;
    if (last > 7
        && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
        && !Character.isWhitespace(authorization.charAt(7))
        && !Character.isWhitespace(authorization.charAt(last))) {
      // The usual form, one space and nothing around: no need to strip and split.
      return authorization.substring(7);
    }
    String header = authorization.strip();
    int space = 0;
    while (space < header.length() && !Character.isWhitespace(header.charAt(space))) {
      space++;
    }
    if (!header.substring(0, space).equalsIgnoreCase("Bearer")) {
      return null;
    }
    String token = header.substring(space).strip();
    return token.isEmpty() ? null : token;
  }

  private Checked checked(String id) {
    long now = nanoTime.getAsLong();
    Checked checked = recent.get(id);
    if (checked != null && checked.fresh(now)) {
      return checked;
    }
    TokenStore.Entry entry = store.flatMap(s -> s.find(id)).orElse(null);
    if (entry == null) {
      recent.remove(id);
      return null;
    }
    checked = new Checked(entry, grantsOf(entry.grants()), now);
    recent.put(id, checked);
    return checked;
  }

  /**
   * Whether the token of id {@code credential} still authenticates (neither revoked nor expired),
   * as of at most the cache's two seconds ago.
   */
  public boolean stillValid(String credential) {
    Checked checked = checked(credential);
    return checked != null && live(checked.entry);
  }

  /** A new token, created and kept; its text is returned once and never again. */
  public record Created(String id, String token, ObjectNode description) {}

  /**
   * Creates a token for {@code principal}. Without {@code agents} it may speak only as the agent
   * named like the principal; {@code *} allows any.
   */
  public Created create(
      String principal,
      List<Grants.Grant> grants,
      Set<String> agents,
      Sensitivity clearance,
      Duration expiresIn) {
    TokenStore tokens = requireStore();
    if (principal == null || principal.isBlank() || principal.length() > 256) {
      throw SgmException.invalidRequest("principal", "must be a name of 1 to 256 characters");
    }
    if (grants.isEmpty()) {
      throw SgmException.invalidRequest("grant", "a token needs at least one grant");
    }
    Set<String> speaks = agents.isEmpty() ? Set.of(principal) : new LinkedHashSet<>(agents);
    byte[] idBytes = new byte[8];
    random.nextBytes(idBytes);
    byte[] secretBytes = new byte[32];
    random.nextBytes(secretBytes);
    String id = HexFormat.of().formatHex(idBytes);
    String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(secretBytes);
    Instant now = clock.instant();
    Grants granted = new Grants(grants, speaks, clearance);
    TokenStore.Entry entry =
        new TokenStore.Entry(
            id,
            principal,
            sha256(secret),
            Json.write(grantsJson(granted)),
            now,
            expiresIn == null ? null : now.plus(expiresIn),
            null);
    tokens.add(entry);
    return new Created(id, "sgm_" + id + "_" + secret, describe(entry));
  }

  /** A lifetime written as 30d, 12h or 90m; {@code invalid_request} naming {@code field} else. */
  public static Duration lifetime(String text, String field) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,6})([dhm])").matcher(text);
    if (!m.matches()) {
      throw SgmException.invalidRequest(field, "'" + text + "' is not like 30d, 12h or 90m");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "d" -> Duration.ofDays(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofMinutes(n);
    };
  }

  /** Every token, described without its secret. */
  public List<ObjectNode> list() {
    List<ObjectNode> list = new ArrayList<>();
    requireStore().list().forEach(e -> list.add(describe(e)));
    return list;
  }

  /** Revokes the token {@code id} (the part after {@code sgm_}); {@code not_found} if none. */
  public void revoke(String id) {
    if (!requireStore().revoke(id, clock.instant())) {
      throw new SgmException(ErrorCode.NOT_FOUND, "no live token " + id);
    }
    recent.remove(id);
  }

  private TokenStore requireStore() {
    return store.orElseThrow(
        () -> new SgmException(ErrorCode.UNSUPPORTED_CAPABILITY, "this storage keeps no tokens"));
  }

  private ObjectNode describe(TokenStore.Entry entry) {
    ObjectNode json = Json.object();
    json.put("id", entry.id());
    json.put("principal", entry.principal());
    json.setAll((ObjectNode) Json.parse(entry.grants()));
    json.put("created_at", Timestamps.format(entry.createdAt()));
    if (entry.expiresAt() != null) {
      json.put("expires_at", Timestamps.format(entry.expiresAt()));
    }
    String state =
        entry.revokedAt() != null
            ? "revoked"
            : entry.expiresAt() != null && !clock.instant().isBefore(entry.expiresAt())
                ? "expired"
                : "live";
    json.put("state", state);
    return json;
  }

  private static ObjectNode grantsJson(Grants grants) {
    ObjectNode json = Json.object();
    ArrayNode list = json.putArray("grants");
    for (Grants.Grant grant : grants.grants()) {
      list.addObject()
          .put("scope", grant.scope().canonical())
          .put("access", grant.access().wireName());
    }
    ArrayNode agents = json.putArray("agents");
    grants.agents().stream().sorted().forEach(agents::add);
    json.put("clearance", grants.clearance().wireName());
    return json;
  }

  private static Grants grantsOf(String text) {
    JsonNode json = Json.parse(text);
    List<Grants.Grant> grants = new ArrayList<>();
    for (JsonNode grant : json.path("grants")) {
      grants.add(
          new Grants.Grant(
              Scope.parseCanonical(grant.path("scope").asText()),
              Grants.Access.fromWireName(grant.path("access").asText())));
    }
    Set<String> agents = new LinkedHashSet<>();
    json.path("agents").forEach(a -> agents.add(a.asText()));
    return new Grants(
        grants, agents, Sensitivity.fromWireName(json.path("clearance").asText(), "clearance"));
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  private static SgmException unauthenticated(String message) {
    return new SgmException(ErrorCode.UNAUTHENTICATED, message);
  }
}
