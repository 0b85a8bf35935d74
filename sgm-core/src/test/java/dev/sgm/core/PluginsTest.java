package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Caller;
import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

class PluginsTest {
  private static final Caller CALLER = Caller.embedded();

  @Test
  void discoveryIsAssembledFromThePluginsPresent() {
    try (SgmRuntime sgm = TestRuntimes.open()) {
      DiscoveryDocument discovery = sgm.discovery();
      assertEquals(List.of("core", "example", "recording"), discovery.capabilities());
      assertEquals(List.of("widgets"), discovery.profileFeatures().get("example"));
      assertTrue(sgm.service().operations().contains("widgets.count"));
      assertEquals("sgm-java", discovery.implementation());
      assertTrue(
          discovery.implementationVersion().startsWith("0."), discovery.implementationVersion());
    }
  }

  @Test
  void aDisabledProfileIsNotAdvertisedAndItsOperationsAreUnsupported() {
    try (SgmRuntime sgm = TestRuntimes.open("profiles.disabled", "example")) {
      assertEquals(List.of("core", "recording"), sgm.discovery().capabilities());
      SgmException e =
          assertThrows(
              SgmException.class,
              () ->
                  sgm.service()
                      .invoke(CALLER, "widgets.count", Json.parse("{\"scope\":{\"p\":\"x\"}}")));
      assertEquals(ErrorCode.UNSUPPORTED_CAPABILITY, e.code());
      // Without its profile the type is a plain core record: stored without the profile's checks.
      sgm.service()
          .invoke(
              CALLER,
              "store",
              Json.parse(
                  "{\"record\":{\"id\":\"w\",\"type\":\"widget\",\"scope\":{\"p\":\"x\"},"
                      + "\"provenance\":{\"agent\":\"t\"}}}"));
    }
  }

  @Test
  void enabledListsSelectOnlyThoseNamed() {
    try (SgmRuntime sgm =
        TestRuntimes.open("transports.enabled", "recording", "profiles.enabled", "example")) {
      assertEquals(List.of("core", "example", "recording"), sgm.discovery().capabilities());
    }
    try (SgmRuntime sgm = TestRuntimes.open("transports.disabled", "recording")) {
      assertEquals(List.of("core", "example"), sgm.discovery().capabilities());
    }
  }

  @Test
  void theOwningProfileValidatesItsTypesAndAddsOperations() {
    try (SgmRuntime sgm = TestRuntimes.open()) {
      SgmException e =
          assertThrows(
              SgmException.class,
              () ->
                  sgm.service()
                      .invoke(
                          CALLER,
                          "store",
                          Json.parse(
                              "{\"record\":{\"id\":\"w\",\"type\":\"widget\",\"scope\":{\"p\":\"x\"},"
                                  + "\"provenance\":{\"agent\":\"t\"},\"data\":{\"size\":\"big\"}}}")));
      assertEquals(ErrorCode.INVALID_RECORD, e.code());
      assertEquals("data.size", e.details().get(0).field());
      sgm.service()
          .invoke(
              CALLER,
              "store",
              Json.parse(
                  "{\"record\":{\"id\":\"w\",\"type\":\"widget\",\"scope\":{\"p\":\"x\"},"
                      + "\"provenance\":{\"agent\":\"t\"},\"data\":{\"size\":3}}}"));
      assertEquals(
          1,
          sgm.service()
              .invoke(CALLER, "widgets.count", Json.parse("{\"scope\":{\"p\":\"x\"}}"))
              .path("count")
              .asLong());
    }
  }

  @Test
  void unknownNamesInConfigurationFailStartUpListingTheAvailableOnes() {
    SgmException e =
        assertThrows(SgmException.class, () -> TestRuntimes.open("profiles.disabled", "histroy"));
    assertTrue(
        e.getMessage().contains("unknown profile 'histroy' in profiles.disabled"), e.getMessage());
    assertTrue(e.getMessage().contains("[example]"), e.getMessage());
    assertTrue(e.getMessage().contains("sgm-profile-histroy"), e.getMessage());
    e = assertThrows(SgmException.class, () -> TestRuntimes.open("storage", "postgres"));
    assertTrue(e.getMessage().contains("unknown storage 'postgres'"), e.getMessage());
  }

  @Test
  void duplicateNamesFailStartUpNamingBothProviders() {
    ProfileProvider first = new ExampleProfileProvider();
    ProfileProvider second =
        new ProfileProvider() {
          @Override
          public String name() {
            return "example";
          }

          @Override
          public Profile create(Config config, ProfileContext context) {
            throw new AssertionError("never created");
          }
        };
    SgmException e =
        assertThrows(
            SgmException.class,
            () ->
                PluginLoader.select(
                    "profile", "sgm-profile-", List.of(first, second), Config.empty()));
    assertTrue(e.getMessage().contains("two profile plugins are named 'example'"), e.getMessage());
    assertTrue(e.getMessage().contains(ExampleProfileProvider.class.getName()), e.getMessage());
  }

  @Test
  void transportsStartWithTheEngineAndStopBeforeStorageCloses() throws Exception {
    RecordingTransportProvider.EVENTS.clear();
    try (SgmRuntime sgm = TestRuntimes.open()) {
      assertEquals(List.of("memory:recording"), sgm.startTransports().get(0).endpoints());
    }
    // Started once the engine offers its operations: the 14 of core and the example profile's one.
    assertEquals(List.of("start 15", "close"), RecordingTransportProvider.EVENTS);
  }

  @Test
  void theEngineProvidesNoPluginAndReadsNoDatabase() throws Exception {
    // Storage is a plugin like every other: the engine finds it, it does not embed one.
    String moduleInfo =
        java.nio.file.Files.readString(java.nio.file.Path.of("src/main/java/module-info.java"));
    assertTrue(!moduleInfo.contains("provides "), moduleInfo);
    assertTrue(!moduleInfo.contains("com.h2database"), moduleInfo);
    assertTrue(
        !java.nio.file.Files.exists(java.nio.file.Path.of("src/main/resources/META-INF/services")),
        "core lists no service providers");
  }
}
