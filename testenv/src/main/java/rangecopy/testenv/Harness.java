package rangecopy.testenv;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.hbase.thirdparty.com.google.gson.Gson;
import org.apache.hbase.thirdparty.com.google.gson.GsonBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts two independent HBase mini clusters, "source" and "target", each with its own ZooKeeper,
 * its own HDFS (three DataNodes, replication 2), one master and two region servers, all bound to
 * loopback. Writes clusters.json into the state directory, prints a READY line, serves the control
 * channel on loopback, and shuts both clusters down on SIGTERM, on POST /shutdown, or (with
 * --exit-on-stdin-eof) when standard input closes.
 *
 * <p>Usage: Harness --dir DIR [--exit-on-stdin-eof]
 */
public final class Harness {
  private static final Logger LOG = LoggerFactory.getLogger(Harness.class);

  private final Path dir;
  private final MiniCluster source;
  private final MiniCluster target;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private Control control;

  private Harness(Path dir) {
    this.dir = dir;
    this.source = new MiniCluster("source", dir);
    this.target = new MiniCluster("target", dir);
  }

  public static void main(String[] args) throws Exception {
    Path dir = null;
    boolean exitOnStdinEof = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--dir":
          if (i + 1 >= args.length) {
            usage("--dir needs a value");
          }
          dir = Paths.get(args[++i]).toAbsolutePath();
          break;
        case "--exit-on-stdin-eof":
          exitOnStdinEof = true;
          break;
        default:
          usage("unknown argument " + args[i]);
      }
    }
    if (dir == null) {
      usage("--dir is required");
    }
    Files.createDirectories(dir);
    Harness h = new Harness(dir);
    // Runs before Hadoop closes its FileSystem caches (priority 10), so the clusters stop cleanly.
    ShutdownHookManager.get().addShutdownHook(h::stop, 100);
    long t0 = System.nanoTime();
    try {
      h.start();
    } catch (Throwable t) {
      LOG.error("start failed", t);
      System.out.println("FAILED " + t);
      System.out.flush();
      h.stop();
      System.exit(1);
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    System.out.printf("READY %.1fs %s%n", secs, h.dir.resolve("clusters.json"));
    System.out.flush();
    LOG.info("both clusters ready after {} s", secs);
    if (exitOnStdinEof) {
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (in.readLine() != null) {
        // Any line is ignored; end of input means the parent is gone.
      }
      LOG.info("standard input closed; shutting down");
      System.exit(0); // runs the shutdown hook
    }
    Thread.currentThread().join(); // until SIGTERM or POST /shutdown
  }

  private static void usage(String why) {
    System.err.println("testenv harness: " + why);
    System.err.println("usage: Harness --dir DIR [--exit-on-stdin-eof]");
    System.exit(2);
  }

  private void start() throws Exception {
    // Start one after the other: MiniDFSCluster reads its base directory from a JVM-global
    // system property that the utility sets right before creating each cluster's DFS.
    source.start();
    target.start();
    control = new Control(Map.of("source", source, "target", target), this::requestShutdown);
    control.start();
    writeClustersJson();
  }

  private void writeClustersJson() throws IOException {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("hbaseVersion", VersionInfo.getVersion());
    info.put("hadoopVersion", org.apache.hadoop.util.VersionInfo.getVersion());
    info.put("control", control.address());
    info.put("pid", ProcessHandle.current().pid());
    info.put("source", source.describe());
    info.put("target", target.describe());
    Gson gson = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();
    Path tmp = dir.resolve("clusters.json.tmp");
    try (OutputStream os = Files.newOutputStream(tmp)) {
      os.write(gson.toJson(info).getBytes(StandardCharsets.UTF_8));
    }
    Files.move(tmp, dir.resolve("clusters.json"), StandardCopyOption.ATOMIC_MOVE);
  }

  private void requestShutdown() {
    // Answer the HTTP request first, then exit through the shutdown hook.
    Thread t = new Thread(() -> System.exit(0), "shutdown");
    t.start();
  }

  private void stop() {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    LOG.info("stopping");
    try {
      Files.deleteIfExists(dir.resolve("clusters.json"));
    } catch (IOException e) {
      LOG.warn("remove clusters.json", e);
    }
    if (control != null) {
      control.stop();
    }
    target.stop();
    source.stop();
    LOG.info("stopped");
  }

  static Gson gson() {
    return new GsonBuilder().disableHtmlEscaping().create();
  }
}
