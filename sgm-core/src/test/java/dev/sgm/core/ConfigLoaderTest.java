package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @Test
  void laterSourcesWin(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("sgm.properties");
    Files.writeString(file, "record.max.bytes=2048\nprofiles.disabled=a\nhttp.port=1\n");
    Map<String, String> env =
        Map.of(
            "SGM_CONFIG_FILE", file.toString(), "SGM_PROFILES_DISABLED", "b", "SGM_HTTP_PORT", "2");
    Config config = ConfigLoader.load(Map.of("http.port", "3"), env);
    assertEquals(2048, config.getLong("record.max.bytes", 0), "file over defaults");
    assertEquals("b", config.get("profiles.disabled", ""), "environment over file");
    assertEquals(3, config.getInt("http.port", 0), "explicit over environment");
    assertEquals("h2", config.get("storage", ""), "defaults");
  }

  @Test
  void aDoubleUnderscoreInAnEnvironmentNameIsAHyphen() {
    Config config =
        ConfigLoader.load(
            Map.of(),
            Map.of("SGM_HTTP_MAX__BODY__BYTES", "4096", "SGM_GRPC_STOP__TIMEOUT__MS", "250"));
    assertEquals(4096, config.getLong("http.max-body-bytes", 0));
    assertEquals(250, config.getLong("grpc.stop-timeout-ms", 0));
  }

  @Test
  void theDataDirectoryFollowsXdg() {
    assertEquals(
        Path.of("/x/data/sgm").toString(),
        ConfigLoader.load(Map.of(), Map.of("XDG_DATA_HOME", "/x/data")).get("data.dir", ""));
  }

  @Test
  void badValuesAndMissingFilesAreNamed() {
    Config config = Config.of(Map.of("record.max.bytes", "lots"));
    SgmException e = assertThrows(SgmException.class, () -> config.getLong("record.max.bytes", 1));
    assertEquals("configuration record.max.bytes: 'lots' is not a whole number", e.getMessage());
    e =
        assertThrows(
            SgmException.class,
            () ->
                ConfigLoader.load(Map.of("config.file", "/nonexistent/sgm.properties"), Map.of()));
    assertEquals(true, e.getMessage().contains("/nonexistent/sgm.properties"));
  }

  @Test
  void aKeyNothingReadsIsRefusedWithTheNearestKnownOne(@TempDir Path dir) throws Exception {
    SgmException misspelled =
        assertThrows(
            SgmException.class,
            () -> ConfigLoader.loadChecked(Map.of("storage.h2.synk", "fsync"), Set.of()));
    assertTrue(
        misspelled.getMessage().contains("unknown configuration key 'storage.h2.synk'")
            && misspelled.getMessage().contains("did you mean 'storage.h2.sync'?"),
        misspelled.getMessage());
    // A key the storage plugin declares, one the core reads and one the host declares pass.
    assertEquals(
        "fsync",
        ConfigLoader.loadChecked(
                Map.of("storage.h2.sync", "fsync", "watch.buffer", "10", "host.key", "1"),
                Set.of("host.key"))
            .get("storage.h2.sync")
            .orElseThrow());
    Path file = dir.resolve("sgm.properties");
    Files.writeString(file, "record.max.byte=10\n");
    SgmException inFile =
        assertThrows(
            SgmException.class,
            () -> ConfigLoader.loadChecked(Map.of("config.file", file.toString()), Set.of()));
    assertTrue(
        inFile.getMessage().contains("'record.max.byte' (in " + file + ")")
            && inFile.getMessage().contains("'record.max.bytes'"),
        inFile.getMessage());
  }
}
