package dev.sgm.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guides for people who extend or read the code say what the code is: every Java example of
 * docs/writing-a-plugin.md compiles, as a third party's code, against the API, the kit and the
 * storage suite; every class, module and thread docs/architecture.md names exists.
 */
class DocumentationTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern CODE = Pattern.compile("`([^`\\n]+)`");

  private static String doc(String name) throws IOException {
    return Files.readString(ROOT.resolve("docs").resolve(name));
  }

  /** The type a Java source declares first, for its file name. */
  private static String typeName(String source) {
    Matcher declared =
        Pattern.compile(
                "(?m)^(?:public )?(?:final |abstract )*(?:class|interface|record|enum) (\\w+)")
            .matcher(source);
    assertTrue(declared.find(), "an example that declares no type:\n" + source);
    return declared.group(1);
  }

  @Test
  void everyExampleOfThePluginGuideCompilesAgainstThePublishedModules(@TempDir Path out)
      throws IOException {
    Matcher blocks = JAVA_BLOCK.matcher(doc("writing-a-plugin.md"));
    List<JavaFileObject> sources = new ArrayList<>();
    while (blocks.find()) {
      String source = blocks.group(1);
      String name = typeName(source);
      String pkg = source.replaceFirst("(?s)^\\s*package ([\\w.]+);.*", "$1");
      URI uri = URI.create("string:///" + pkg.replace('.', '/') + "/" + name + ".java");
      sources.add(
          new SimpleJavaFileObject(uri, JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return source;
            }
          });
    }
    assertTrue(sources.size() >= 8, "the guide's examples: " + sources.size());
    // The test's own modules (the API, the kit, the storage suite, JUnit, Jackson) as a third
    // party's build would have them.
    String path =
        Stream.of(System.getProperty("jdk.module.path", ""), System.getProperty("java.class.path"))
            .filter(p -> p != null && !p.isBlank())
            .collect(Collectors.joining(File.pathSeparator));
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null)) {
      boolean compiled =
          compiler
              .getTask(
                  diagnostics,
                  files,
                  null,
                  List.of("-classpath", path, "-d", out.toString(), "-proc:none"),
                  null,
                  sources)
              .call();
      assertTrue(compiled, diagnostics.toString());
    }
  }

  /** A type of the JDK's that the page may name, such as {@code ServiceLoader}. */
  private static boolean isJdkType(String name) {
    for (String pkg : List.of("java.lang.", "java.util.", "java.util.concurrent.")) {
      try {
        Class.forName(pkg + name);
        return true;
      } catch (ClassNotFoundException e) {
        // Not in this package.
      }
    }
    return false;
  }

  @Test
  void everyClassModuleAndThreadTheArchitecturePageNamesExists() throws IOException {
    Set<String> javaFiles;
    Set<String> modules;
    String sources;
    try (Stream<Path> walk = Files.walk(ROOT)) {
      List<Path> files =
          walk.filter(
                  p ->
                      !p.toString().contains("/target/")
                          && !p.toString().contains("/node_modules/"))
              .filter(
                  p ->
                      p.toString().endsWith(".proto")
                          || (p.toString().endsWith(".java")
                              && p.toString().contains("/src/main/")))
              .toList();
      javaFiles =
          files.stream()
              .filter(p -> p.toString().endsWith(".java"))
              .map(p -> p.getFileName().toString().replace(".java", ""))
              .collect(Collectors.toSet());
      StringBuilder all = new StringBuilder();
      for (Path file : files) {
        all.append(Files.readString(file));
      }
      sources = all.toString();
    }
    try (Stream<Path> dirs = Files.list(ROOT)) {
      modules =
          dirs.filter(d -> Files.exists(d.resolve("pom.xml")))
              .map(d -> d.getFileName().toString())
              .collect(Collectors.toSet());
    }
    Matcher code = CODE.matcher(doc("architecture.md"));
    Set<String> missing = new LinkedHashSet<>();
    int checked = 0;
    while (code.find()) {
      for (String word : code.group(1).split(",\\s*")) {
        word = word.strip();
        if (word.matches("sgm-[a-z0-9-]+")) {
          if (!modules.contains(word) && !sources.contains("\"" + word)) {
            missing.add(word);
          }
          checked++;
        } else if (word.matches("[A-Z][A-Za-z0-9]+(\\.\\w+\\(?\\)?)?")) {
          String type = word.split("\\.")[0];
          if (!javaFiles.contains(type)
              && !sources.contains("service " + type + " {")
              && !isJdkType(type)) {
            missing.add(word);
          } else if (word.contains(".")) {
            String member = word.substring(word.indexOf('.') + 1).replace("()", "");
            if (!sources.contains(member)) {
              missing.add(word);
            }
          }
          checked++;
        }
      }
    }
    assertTrue(checked > 50, "names checked: " + checked);
    assertEquals(Set.of(), missing, "named in docs/architecture.md but not in the code");
  }

  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  /** The documents people read: the READMEs and every page under docs/. */
  private static List<Path> readable() throws IOException {
    List<Path> documents = new ArrayList<>();
    documents.add(ROOT.resolve("README.md"));
    documents.add(ROOT.resolve("sgm-tck/README.md"));
    documents.add(ROOT.resolve("sgm-benchmarks/README.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    return documents;
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
  private static Set<String> anchors(Path document) throws IOException {
    Set<String> anchors = new LinkedHashSet<>();
    for (String line : Files.readAllLines(document)) {
      if (line.startsWith("#")) {
        anchors.add(
            line.replaceFirst("^#+\\s*", "")
                .toLowerCase(java.util.Locale.ROOT)
                .replaceAll("[^a-z0-9 _-]", "")
                .replace(' ', '-'));
      }
    }
    return anchors;
  }

  @Test
  void everyLinkOfTheDocumentsResolvesInsideTheRepository() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path document : readable()) {
      Matcher link = LINK.matcher(Files.readString(document));
      while (link.find()) {
        String target = link.group(1);
        if (target.matches("[a-z]+:.*")) {
          continue; // another site's address
        }
        String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
        String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
        Path resolved = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
        checked++;
        if (!Files.exists(resolved)) {
          broken.add(ROOT.relativize(document) + ": " + target + " (no such file)");
        } else if (anchor != null && !anchors(resolved).contains(anchor)) {
          broken.add(ROOT.relativize(document) + ": " + target + " (no such heading)");
        }
      }
    }
    assertTrue(broken.isEmpty(), String.join("\n", broken));
    assertTrue(checked >= 40, "links checked: " + checked);
  }

  @Test
  void theReadmeIsShortAndTheSpecificationHoldsRulesNotMeasurements() throws IOException {
    long lines = Files.readAllLines(ROOT.resolve("README.md")).size();
    assertTrue(lines <= 300, "README.md has " + lines + " lines");
    Pattern outside =
        Pattern.compile(
            "CONTRACT|§|the seeds|[Ii]ssue \\d|\\bsitting\\b|p50|p99|\\d+(\\.\\d+)?x\\b");
    List<String> found = new ArrayList<>();
    try (Stream<Path> spec = Files.list(ROOT.resolve("docs/spec"))) {
      for (Path page : spec.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
        List<String> pageLines = Files.readAllLines(page);
        for (int i = 0; i < pageLines.size(); i++) {
          Matcher m = outside.matcher(pageLines.get(i));
          if (m.find()) {
            found.add(page.getFileName() + ":" + (i + 1) + ": " + m.group());
          }
        }
      }
    }
    assertTrue(
        found.isEmpty(),
        "measurements or references outside the repository:\n" + String.join("\n", found));
  }
}
