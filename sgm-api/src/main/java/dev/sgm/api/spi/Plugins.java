package dev.sgm.api.spi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The one place plugins are found, by {@link ServiceLoader}: on the module path, or, when the
 * launcher names a plugin directory that it left off the module path ({@value #DIRECTORY}, as it
 * does for a relay beside a data directory's holder, which needs the core and the MCP plugin only),
 * in a layer of that directory's modules, made the first time a plugin of any kind is asked for. So
 * a process that never opens an engine never reads the plugins' jars.
 */
public final class Plugins {
  /** The system property naming the directory of plugins left off the module path. */
  public static final String DIRECTORY = "sgm.plugins";

  private static volatile ModuleLayer layer;

  private Plugins() {}

  /** Every provider of {@code kind}, from the module path and, if named, the plugin directory. */
  public static <S> ServiceLoader<S> load(Class<S> kind) {
    ModuleLayer plugins = layer();
    return plugins == null ? loadPresent(kind) : ServiceLoader.load(plugins, kind);
  }

  /**
   * Every provider of {@code kind} on the module path (or the class path) alone, without reading a
   * plugin directory the launcher left off it.
   */
  public static <S> ServiceLoader<S> loadPresent(Class<S> kind) {
    return ServiceLoader.load(kind, Plugins.class.getClassLoader());
  }

  /** The layer of the plugin directory, made on first use; null when none is named. */
  private static ModuleLayer layer() {
    ModuleLayer found = layer;
    if (found != null || System.getProperty(DIRECTORY) == null) {
      return found;
    }
    synchronized (Plugins.class) {
      if (layer == null) {
        layer = pluginLayer(Path.of(System.getProperty(DIRECTORY)));
      }
      return layer;
    }
  }

  /**
   * A layer of the modules in {@code directory} that the boot layer does not have already (a second
   * copy of one would offer its providers twice), every one of them a root, with native access, as
   * the launcher grants it to the modules on its module path.
   */
  private static ModuleLayer pluginLayer(Path directory) {
    ModuleLayer boot = ModuleLayer.boot();
    List<Path> jars = new ArrayList<>();
    Set<String> roots = new TreeSet<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path jar : files.filter(f -> f.toString().endsWith(".jar")).sorted().toList()) {
        for (ModuleReference module : ModuleFinder.of(jar).findAll()) {
          String name = module.descriptor().name();
          if (boot.findModule(name).isEmpty()) {
            jars.add(jar);
            roots.add(name);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the plugin directory " + directory, e);
    }
    Configuration configuration =
        boot.configuration()
            .resolveAndBind(ModuleFinder.of(jars.toArray(Path[]::new)), ModuleFinder.of(), roots);
    ModuleLayer.Controller controller =
        ModuleLayer.defineModulesWithOneLoader(
            configuration, List.of(boot), ClassLoader.getSystemClassLoader());
    for (Module module : controller.layer().modules()) {
      enableNativeAccess(controller, module);
    }
    // Libraries that find their resources through the context class loader (the tokenizer's
    // native library, for one) look in the plugins' layer; the engine's threads start from this
    // one and inherit it.
    Thread.currentThread()
        .setContextClassLoader(controller.layer().modules().iterator().next().getClassLoader());
    return controller.layer();
  }

  /**
   * Grants native access where the runtime restricts it (Java 22 and later), by reflection: this
   * module is built for Java 21, which has no such method and no such restriction.
   */
  private static void enableNativeAccess(ModuleLayer.Controller controller, Module module) {
    try {
      ModuleLayer.Controller.class
          .getMethod("enableNativeAccess", Module.class)
          .invoke(controller, module);
    } catch (NoSuchMethodException e) {
      // Java 21: nothing to grant.
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot grant native access to " + module.getName(), e);
    }
  }
}
