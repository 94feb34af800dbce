package rangecopy.testenv;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.FlushLifeCycleTracker;

/**
 * A region observer that holds each flush of a table for a while, once a test asks
 * (table/slowflush): a snapshot's flush then lasts long enough for a test to stop a region server
 * in the middle of it. Tables created with TableOptions.SlowFlushable carry it; their flushes are
 * quick until a delay is set. Delays are kept per cluster (its hbase.rootdir) and table, so the
 * target's copy of a table, which carries the observer too, is not held.
 */
public final class SlowFlush implements RegionCoprocessor, RegionObserver {
  private static final Map<String, Long> DELAYS = new ConcurrentHashMap<>();

  static String key(String rootDir, String table) {
    return rootDir + "|" + table;
  }

  /** Sets (ms > 0) or clears the delay of every flush of table in the cluster of rootDir. */
  static void set(String rootDir, String table, long ms) {
    if (ms > 0) {
      DELAYS.put(key(rootDir, table), ms);
    } else {
      DELAYS.remove(key(rootDir, table));
    }
  }

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void preFlush(ObserverContext<RegionCoprocessorEnvironment> c, FlushLifeCycleTracker tracker)
      throws IOException {
    RegionCoprocessorEnvironment env = c.getEnvironment();
    Long ms = DELAYS.get(key(env.getConfiguration().get("hbase.rootdir"),
        env.getRegionInfo().getTable().getNameAsString()));
    if (ms == null) {
      return;
    }
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("slow flush interrupted");
    }
  }
}
