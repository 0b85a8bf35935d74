package dev.sgm.profile.history;

import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.util.Map;

/**
 * The child JVM of {@link RestoreCrashTest}. {@code prepare DIR N}: stores N records, snapshots the
 * scope, then changes every record and adds N/5 more. {@code restore DIR}: restores the snapshot,
 * saying RESTORING first and DONE after; the parent kills it in between.
 */
public final class RestoreCrashChild {
  private RestoreCrashChild() {}

  public static void main(String[] args) {
    SgmRuntime sgm =
        SgmRuntime.open(ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, args[1]), Map.of()));
    Caller caller = Caller.embedded();
    if (args[0].equals("prepare")) {
      int n = Integer.parseInt(args[2]);
      batch(sgm, caller, 0, n, "original");
      sgm.service()
          .invoke(
              caller,
              "snapshots.create",
              Json.parse("{\"scope\":{\"project\":\"crash\"},\"name\":\"base\"}"));
      batch(sgm, caller, 0, n + n / 5, "changed");
      sgm.close();
      System.out.println("PREPARED");
    } else {
      System.out.println("RESTORING");
      System.out.flush();
      sgm.service()
          .invoke(
              caller,
              "snapshots.restore",
              Json.parse("{\"scope\":{\"project\":\"crash\"},\"name\":\"base\"}"));
      System.out.println("DONE");
      System.out.flush();
      sgm.close();
    }
    System.exit(0);
  }

  private static void batch(SgmRuntime sgm, Caller caller, int from, int to, String content) {
    for (int start = from; start < to; start += 1000) {
      StringBuilder records = new StringBuilder("{\"records\":[");
      for (int i = start; i < Math.min(to, start + 1000); i++) {
        records
            .append(i == start ? "" : ",")
            .append("{\"id\":\"r")
            .append(i)
            .append("\",\"type\":\"note\",\"scope\":{\"project\":\"crash\"},\"content\":\"")
            .append(content)
            .append(" ")
            .append(i)
            .append("\",\"provenance\":{\"agent\":\"crash\"}}");
      }
      records.append("]}");
      sgm.service().invoke(caller, "store_batch", Json.parse(records.toString()));
    }
  }
}
