package rangecopy.testenv;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.mapreduce.HashTable;
import org.apache.hadoop.hbase.mapreduce.SyncTable;
import org.apache.hadoop.hbase.zookeeper.ZKConfig;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.CounterGroup;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.util.ToolRunner;

/**
 * HBase's HashTable and SyncTable, run in the harness JVM through ToolRunner with a cluster's
 * Configuration and the local MapReduce runner.
 *
 * <p>mapreduce/hashtable (cluster: the table's): args, the tool's command line (options, table,
 * output dir). mapreduce/synctable (cluster: the target): args, the tool's command line without
 * --sourcezkcluster, which the operation adds: sourceClusterKey (quorum:port:/parent, so the source
 * may run in another JVM), or the key of the cluster in this JVM named by sourceCluster. Both answer
 * exitCode; SyncTable also its job counters by name (HASHES_MATCHED, BATCHES, ...).
 */
final class MapReduceOps {
  private final Map<String, MiniCluster> clusters;

  MapReduceOps(Map<String, MiniCluster> clusters) {
    this.clusters = clusters;
  }

  Object hashTable(MiniCluster c, Request req) throws Exception {
    List<String> args = req.strings("args");
    Configuration conf = new Configuration(c.configuration());
    int exit;
    synchronized (Tools.LOCK) { // one job or tool at a time: Tools captures the JVM's output and logs
      exit = ToolRunner.run(conf, new HashTable(conf), args.toArray(new String[0]));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("exitCode", exit);
    return m;
  }

  Object syncTable(MiniCluster c, Request req) throws Exception {
    // The source is named by its cluster key (sourceClusterKey: it may run in another JVM, and
    // the target reaches it over loopback like any client), or by its name in this JVM.
    String sourceKey;
    if (req.has("sourceClusterKey")) {
      sourceKey = req.string("sourceClusterKey");
    } else {
      String sourceName = req.string("sourceCluster");
      MiniCluster source = clusters.get(sourceName);
      if (source == null) {
        throw new BadRequest("unknown sourceCluster \"" + sourceName + "\" in this JVM (known: " + clusters.keySet()
            + "); give sourceClusterKey");
      }
      sourceKey = ZKConfig.getZooKeeperClusterKey(source.configuration());
    }
    List<String> args = req.strings("args");
    // Hadoop's generic options (-D k=v) are parsed only before the first
    // tool option, so the ones given lead and --sourcezkcluster follows.
    List<String> argv = new ArrayList<>();
    int i = 0;
    while (i < args.size()) {
      String a = args.get(i);
      if (a.equals("-D") && i + 1 < args.size()) {
        argv.add(a);
        argv.add(args.get(i + 1));
        i += 2;
      } else if (a.startsWith("-D") && a.length() > 2) {
        argv.add(a);
        i++;
      } else {
        break;
      }
    }
    argv.add("--sourcezkcluster=" + sourceKey);
    argv.addAll(args.subList(i, args.size()));
    Configuration conf = new Configuration(c.configuration());
    SyncTable tool = new SyncTable(conf);
    int exit;
    synchronized (Tools.LOCK) { // one job or tool at a time: Tools captures the JVM's output and logs
      exit = ToolRunner.run(conf, tool, argv.toArray(new String[0]));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("exitCode", exit);
    Map<String, Long> counters = new LinkedHashMap<>();
    // SyncTable keeps its job's counters in a package-private field.
    Field f = SyncTable.class.getDeclaredField("counters");
    f.setAccessible(true);
    Counters cs = (Counters) f.get(tool);
    if (cs != null) {
      for (CounterGroup g : cs) {
        if (!g.getName().endsWith("SyncMapper$Counter")) {
          continue;
        }
        for (Counter k : g) {
          counters.put(k.getName(), k.getValue());
        }
      }
    }
    m.put("counters", counters);
    return m;
  }
}
