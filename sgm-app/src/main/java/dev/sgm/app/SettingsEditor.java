package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Changes to an agent's settings files that can be taken back exactly. Each change is recorded in a
 * ledger (a JSON array of edits) with what it found, and undoing a ledger, last edit first,
 * restores that: uninstall removes what install added and nothing the user had, and install undoes
 * its previous ledger before applying itself, so that running it again changes nothing. Files are
 * read once, and written only at {@link #commit}, only those whose content changed.
 */
final class SettingsEditor {
  /** A settings file as it was read and as the edits leave it. */
  private static final class Document {
    final Path file;
    final boolean toml;
    final String original;
    ObjectNode tree;
    String text;
    boolean present;

    Document(Path file, boolean toml, String original) {
      this.file = file;
      this.toml = toml;
      this.original = original;
      this.present = original != null;
      this.text = original == null ? "" : original;
      this.tree = toml ? null : SettingsFiles.parseObject(file, original);
    }

    boolean empty() {
      return toml ? text.isBlank() : tree.isEmpty();
    }
  }

  private final Map<Path, Document> documents = new LinkedHashMap<>();
  private final ArrayNode ledger = Json.array();
  private final Set<Path> recordedDirectories = new LinkedHashSet<>();
  private final Set<Path> directoriesToRemove = new LinkedHashSet<>();
  private final Map<Path, List<String>> added = new LinkedHashMap<>();
  private final Map<Path, List<String>> removed = new LinkedHashMap<>();
  private boolean undoing;
  private final boolean secret;

  /** {@code secret}: new files are readable by their owner alone (a token is written in them). */
  SettingsEditor(boolean secret) {
    this.secret = secret;
  }

  /** The edits applied since this editor was made, to be kept and undone by uninstall. */
  ArrayNode ledger() {
    return ledger;
  }

  /** Reads every file {@code edits} names, so that one that is not valid JSON stops us first. */
  void load(JsonNode edits) {
    for (JsonNode edit : edits) {
      if (edit.has("file")) {
        document(Path.of(edit.path("file").asText()));
      }
    }
  }

  /** The file's document, read the first time; a {@code .toml} file is text, others JSON. */
  private Document document(Path file) {
    Path key = file.toAbsolutePath().normalize();
    boolean toml = key.getFileName().toString().endsWith(".toml");
    return documents.computeIfAbsent(key, f -> new Document(f, toml, SettingsFiles.read(f)));
  }

  /** Reads {@code file} now, refusing it if it is not valid JSON. */
  void loadJson(Path file) {
    document(file);
  }

  // ----- edits, each recorded -----------------------------------------------------------------

  private ObjectNode record(String kind, Document document) {
    ObjectNode edit = ledger.addObject().put("edit", kind);
    if (document != null) {
      edit.put("file", document.file.toString());
    }
    return edit;
  }

  /**
   * The document about to change: one absent until now is recorded as created, with its folders.
   */
  private Document changing(Path file) {
    Document document = document(file);
    if (!document.present) {
      List<Path> missing = new ArrayList<>();
      for (Path dir = document.file.getParent(); dir != null; dir = dir.getParent()) {
        boolean absent = !Files.isDirectory(dir) || directoriesToRemove.contains(dir);
        if (!absent || recordedDirectories.contains(dir)) {
          break;
        }
        missing.add(0, dir);
      }
      for (Path dir : missing) {
        directoriesToRemove.remove(dir);
        recordedDirectories.add(dir);
        ledger.addObject().put("edit", "directory").put("path", dir.toString());
      }
      record("file", document);
      document.present = true;
    }
    return document;
  }

  private void describe(Document document, String change) {
    List<String> list =
        (undoing ? removed : added).computeIfAbsent(document.file, f -> new ArrayList<>());
    if (!list.contains(change)) {
      list.add(change);
    }
  }

  /** The object at {@code path} in {@code file}, made (and recorded) where missing. */
  ObjectNode object(Path file, String... path) {
    return (ObjectNode) container(changing(file), List.of(path), false);
  }

  /** The array at {@code path} in {@code file}, made (and recorded) where missing. */
  ArrayNode array(Path file, String... path) {
    return (ArrayNode) container(changing(file), List.of(path), true);
  }

  private JsonNode container(Document document, List<String> path, boolean array) {
    JsonNode node = document.tree;
    for (int i = 0; i < path.size(); i++) {
      ObjectNode parent = (ObjectNode) node;
      boolean last = i == path.size() - 1;
      JsonNode next = parent.get(path.get(i));
      if (next == null) {
        next = last && array ? parent.putArray(path.get(i)) : parent.putObject(path.get(i));
        ArrayNode at = record("created", document).putArray("path");
        path.subList(0, i + 1).forEach(at::add);
      } else if (last && array ? !next.isArray() : !next.isObject()) {
        throw SgmException.invalidRequest(
            document.file.toString(),
            String.join(".", path.subList(0, i + 1))
                + " is not "
                + (last && array ? "an array" : "an object")
                + "; nothing was changed");
      }
      node = next;
    }
    return node;
  }

  /** Adds {@code value} to the array at {@code path} unless it is there already. */
  void addElement(Path file, String value, String... path) {
    ArrayNode array = array(file, path);
    for (JsonNode element : array) {
      if (element.isTextual() && element.asText().equals(value)) {
        return;
      }
    }
    array.add(value);
    Document document = document(file);
    ObjectNode edit = record("element", document).put("value", value);
    List.of(path).forEach(edit.putArray("path")::add);
    describe(document, String.join(".", path) + " " + value);
  }

  /** Sets member {@code name} of the object at {@code path} to {@code value}, keeping what was. */
  void setMember(Path file, String name, JsonNode value, String... path) {
    ObjectNode object = object(file, path);
    JsonNode previous = object.get(name);
    if (previous != null && same(value, previous)) {
      return;
    }
    object.set(name, value);
    Document document = document(file);
    ObjectNode edit = record("member", document).put("name", name);
    List.of(path).forEach(edit.putArray("path")::add);
    if (previous != null) {
      edit.set("previous", previous);
    }
    describe(document, path.length == 0 ? name : String.join(".", path) + "." + name);
  }

  /**
   * Adds {@code entry}, a hook running {@code command}, to {@code hooks.<event>} unless an equal
   * entry is there; returns the entry's index there.
   */
  int addHook(Path file, String event, ObjectNode entry, String command) {
    ArrayNode array = array(file, "hooks", event);
    for (int i = 0; i < array.size(); i++) {
      if (same(array.get(i), entry)) {
        return i;
      }
    }
    array.add(entry);
    Document document = document(file);
    ObjectNode edit = record("hook", document).put("event", event).put("command", command);
    edit.set("entry", entry.deepCopy());
    describe(document, "hook " + event);
    return array.size() - 1;
  }

  /** The TOML file's text as the edits so far leave it. */
  String toml(Path file) {
    return document(file).text;
  }

  /**
   * Appends {@code body} to the TOML file between comment lines naming {@code marker}, which undo
   * finds again; nothing when {@code body} is empty.
   */
  void appendTomlBlock(Path file, String marker, String body, String description) {
    if (body.isEmpty()) {
      return;
    }
    Document document = changing(file);
    String prefix = document.text.isEmpty() ? "" : document.text.endsWith("\n") ? "\n" : "\n\n";
    document.text += prefix + TomlBlocks.open(marker) + body + TomlBlocks.close(marker);
    record("toml-block", document).put("marker", marker).put("prefix", prefix);
    describe(document, description);
  }

  // ----- undo -----------------------------------------------------------------------------------

  /** Undoes {@code edits}, last first; says per file what it took back. */
  void undo(JsonNode edits) {
    load(edits);
    undoing = true;
    for (int i = edits.size() - 1; i >= 0; i--) {
      JsonNode edit = edits.get(i);
      String kind = edit.path("edit").asText();
      if (kind.equals("directory")) {
        directoriesToRemove.add(Path.of(edit.path("path").asText()));
        continue;
      }
      Document document = document(Path.of(edit.path("file").asText()));
      switch (kind) {
        case "file" -> document.present = !document.empty();
        case "created" -> removeIfEmpty(document, edit.path("path"));
        case "element" -> removeElement(document, edit);
        case "member" -> restoreMember(document, edit);
        case "hook" -> removeHook(document, edit);
        case "toml-block" -> {
          document.text =
              TomlBlocks.remove(
                  document.text, edit.path("marker").asText(), edit.path("prefix").asText());
          describe(document, "sgm's block");
        }
        default -> throw new IllegalStateException("unknown edit in the ledger: " + edit);
      }
    }
    undoing = false;
  }

  private static JsonNode at(Document document, JsonNode path) {
    JsonNode node = document.tree;
    for (JsonNode name : path) {
      node = node.path(name.asText());
    }
    return node;
  }

  private void removeIfEmpty(Document document, JsonNode path) {
    JsonNode node = at(document, path);
    if (node.isContainerNode() && node.isEmpty() && !path.isEmpty()) {
      JsonNode parent = at(document, parentPath(path));
      if (parent.isObject()) {
        ((ObjectNode) parent).remove(path.get(path.size() - 1).asText());
      }
    }
  }

  private static ArrayNode parentPath(JsonNode path) {
    ArrayNode parent = Json.array();
    for (int i = 0; i < path.size() - 1; i++) {
      parent.add(path.get(i));
    }
    return parent;
  }

  private void removeElement(Document document, JsonNode edit) {
    JsonNode array = at(document, edit.path("path"));
    for (int i = 0; array.isArray() && i < array.size(); i++) {
      if (same(array.get(i), edit.path("value"))) {
        ((ArrayNode) array).remove(i);
        describe(document, pathText(edit.path("path")) + " " + edit.path("value").asText());
        return;
      }
    }
  }

  private void restoreMember(Document document, JsonNode edit) {
    JsonNode object = at(document, edit.path("path"));
    if (!object.isObject()) {
      return;
    }
    String name = edit.path("name").asText();
    if (edit.has("previous")) {
      ((ObjectNode) object).set(name, edit.get("previous"));
    } else {
      ((ObjectNode) object).remove(name);
    }
    String path = pathText(edit.path("path"));
    describe(document, path.isEmpty() ? name : path + "." + name);
  }

  /**
   * Removes the entry the hook edit added; if it was changed meanwhile, the handlers running its
   * command (and the groups they leave empty), so that a hook the user edited still goes.
   */
  private void removeHook(Document document, JsonNode edit) {
    String event = edit.path("event").asText();
    JsonNode array = document.tree.path("hooks").path(event);
    if (!array.isArray()) {
      return;
    }
    ArrayNode entries = (ArrayNode) array;
    for (int i = 0; i < entries.size(); i++) {
      if (same(entries.get(i), edit.path("entry"))) {
        entries.remove(i);
        describe(document, "hook " + event);
        return;
      }
    }
    String command = edit.path("command").asText();
    for (int i = entries.size() - 1; i >= 0; i--) {
      JsonNode entry = entries.get(i);
      if (command.equals(entry.path("command").asText(null))) {
        entries.remove(i);
      } else if (entry.path("hooks").isArray()) {
        ArrayNode handlers = (ArrayNode) entry.get("hooks");
        for (int j = handlers.size() - 1; j >= 0; j--) {
          if (command.equals(handlers.get(j).path("command").asText(null))) {
            handlers.remove(j);
          }
        }
        if (handlers.isEmpty()) {
          entries.remove(i);
        }
      }
    }
    describe(document, "hook " + event);
  }

  private static String pathText(JsonNode path) {
    List<String> names = new ArrayList<>();
    path.forEach(name -> names.add(name.asText()));
    return String.join(".", names);
  }

  // ----- commit ---------------------------------------------------------------------------------

  /**
   * Writes each file whose content changed and deletes those sgm had made and left empty, then the
   * folders it had made, if empty; returns a line per file saying what happened to it.
   */
  List<String> commit() {
    List<String> lines = new ArrayList<>();
    for (Document document : documents.values()) {
      if (!document.present) {
        if (document.original != null) {
          SettingsFiles.delete(document.file);
          lines.add("deleted " + document.file + " (sgm had made it)");
        }
      } else if (unchanged(document)) {
        lines.add("unchanged " + document.file);
      } else {
        String text = document.toml ? document.text : SettingsFiles.pretty(document.tree);
        SettingsFiles.write(document.file, text, secret);
        lines.add("wrote " + document.file + changes(document.file));
      }
    }
    for (Path dir : directoriesToRemove) {
      if (Files.isDirectory(dir) && SettingsFiles.deleteIfEmpty(dir)) {
        lines.add("deleted " + dir + "/ (sgm had made it)");
      }
    }
    return lines;
  }

  /** What the edits added to {@code file}, and what they removed that they did not add back. */
  private String changes(Path file) {
    List<String> in = added.getOrDefault(file, List.of());
    List<String> out = new ArrayList<>(removed.getOrDefault(file, List.of()));
    out.removeAll(in);
    List<String> parts = new ArrayList<>();
    if (!in.isEmpty()) {
      parts.add("added " + String.join(", ", in));
    }
    if (!out.isEmpty()) {
      parts.add("removed " + String.join(", ", out));
    }
    return parts.isEmpty() ? "" : ": " + String.join("; ", parts);
  }

  /**
   * Whether two values are the same JSON, the order of keys aside: compared as read back, since a
   * number read from a file is not equal to the same number made here as a node.
   */
  static boolean same(JsonNode a, JsonNode b) {
    return Json.parse(Json.write(a)).equals(Json.parse(Json.write(b)));
  }

  private static boolean unchanged(Document document) {
    if (document.original == null) {
      return false;
    }
    return document.toml
        ? document.text.equals(document.original)
        // As text: a number read back is not equal to the same number made here as a node.
        : Json.write(document.tree)
            .equals(Json.write(SettingsFiles.parseObject(document.file, document.original)));
  }
}
