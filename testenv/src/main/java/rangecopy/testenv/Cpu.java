package rangecopy.testenv;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.util.JVMClusterUtil.RegionServerThread;

/**
 * CPU time spent so far, for measurements: of the region servers of one cluster, and of the whole
 * harness JVM that runs it (the cluster's own JVM, or both clusters' when they share one). A JVM
 * may hold several clusters, so a region server's share is found by thread name:
 * the threads whose names carry one of the cluster's live region servers' RPC ports (RPC handlers
 * "...,port=P", the server thread and its executors "RS:0;localhost:P...", chores and log rollers
 * "regionserver/localhost:P..."). Threads without the port (the Netty RPC event loops, the memstore
 * flushers, the HDFS client and DataNode threads) are not counted, nor are threads that have
 * already ended. The answer: regionServerCpuNanos, regionServerThreads, processCpuNanos.
 */
final class Cpu {
  Object cpu(MiniCluster c, Request req) {
    List<Pattern> ports = new ArrayList<>();
    for (RegionServerThread t : c.hbase().getLiveRegionServerThreads()) {
      int port = t.getRegionServer().getServerName().getPort();
      ports.add(Pattern.compile("(port=|localhost:)" + port + "(?![0-9])"));
    }
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long nanos = 0;
    int threads = 0;
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      Thread t = e.getKey();
      String name = t.getName();
      for (Pattern p : ports) {
        if (p.matcher(name).find()) {
          long n = mx.getThreadCpuTime(t.getId());
          if (n > 0) {
            nanos += n;
            threads++;
          }
          break;
        }
      }
    }
    long process = -1;
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      process = os.getProcessCpuTime();
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("regionServerCpuNanos", nanos);
    m.put("regionServerThreads", threads);
    m.put("processCpuNanos", process);
    return m;
  }
}
