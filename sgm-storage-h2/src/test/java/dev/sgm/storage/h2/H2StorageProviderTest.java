package dev.sgm.storage.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Scope;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class H2StorageProviderTest {
  @Test
  void theProviderIsDeclaredInModuleInfoAndItsServiceFileAlike() throws Exception {
    String moduleInfo = Files.readString(Path.of("src/main/java/module-info.java"));
    String listed =
        Files.readString(
                Path.of("src/main/resources/META-INF/services/dev.sgm.api.spi.StorageProvider"))
            .trim();
    assertEquals(H2StorageProvider.class.getName(), listed);
    assertTrue(
        moduleInfo
            .replaceAll("\\s+", " ")
            .contains("provides dev.sgm.api.spi.StorageProvider with " + listed),
        moduleInfo);
  }

  @Test
  void aFileStoreKeepsItsIdentityAcrossOpensAndAnInMemoryOneWritesNoFile(@TempDir Path dir) {
    String identity;
    try (Storage storage =
        new H2StorageProvider().create(Config.empty(), StorageContext.of(dir, false))) {
      identity = storage.identity();
      assertTrue(storage.describe().contains(dir.toString()), storage.describe());
    }
    assertTrue(Files.exists(dir.resolve("sgm.mv.db")));
    try (Storage storage =
        new H2StorageProvider().create(Config.empty(), StorageContext.of(dir, false))) {
      assertEquals(identity, storage.identity());
    }
    Path empty = dir.resolve("unused");
    try (Storage storage =
        new H2StorageProvider().create(Config.empty(), StorageContext.of(empty, true))) {
      assertTrue(storage.find(Scope.of("p", "x"), "a").isEmpty());
      assertTrue(!storage.identity().equals(identity));
    }
    assertTrue(!Files.exists(empty), "an in-memory store creates no data directory");
  }
}
