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
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.hbase.thirdparty.com.google.gson.Gson;
import org.apache.hbase.thirdparty.com.google.gson.GsonBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the HBase mini clusters named by its cluster specs (--spec, see ClusterSpec), each with
 * its own ZooKeeper, its own HDFS (three DataNodes, replication 2), one master and two region
 * servers, all bound to loopback. The Go side (testenv.Start) runs one JVM per cluster, so that
 * source and target can differ in HBase release, classpath and Java; several specs in one JVM
 * share its classpath (the single-JVM layout, kept for comparison). Once every cluster is up, it
 * serves the control channel for them on loopback, writes the ready file (--ready: versions,
 * control address, pid and each cluster's description) atomically, prints a READY line, and shuts
 * its clusters down on SIGTERM, on POST /shutdown, or (with --exit-on-stdin-eof) when standard
 * input closes.
 *
 * <p>Usage: Harness --dir DIR --ready FILE --spec SPEC.json [--spec SPEC.json...] [--exit-on-stdin-eof]
 */
public final class Harness {
  private static final Logger LOG = LoggerFactory.getLogger(Harness.class);
  private static final String USAGE =
      "usage: Harness --dir DIR --ready FILE --spec SPEC.json [--spec SPEC.json...] [--exit-on-stdin-eof]";

  private final Path dir;
  private final Path ready;
  private final Map<String, MiniCluster> clusters = new LinkedHashMap<>();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private Control control;

  private Harness(Path dir, Path ready, List<ClusterSpec> specs) {
    this.dir = dir;
    this.ready = ready;
    for (ClusterSpec spec : specs) {
      if (clusters.put(spec.name, new MiniCluster(spec, dir)) != null) {
        usage("two specs name cluster " + spec.name);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    Path dir = null;
    Path ready = null;
    List<Path> specFiles = new ArrayList<>();
    boolean exitOnStdinEof = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--dir":
          dir = Paths.get(value(args, ++i, "--dir")).toAbsolutePath();
          break;
        case "--ready":
          ready = Paths.get(value(args, ++i, "--ready")).toAbsolutePath();
          break;
        case "--spec":
          specFiles.add(Paths.get(value(args, ++i, "--spec")).toAbsolutePath());
          break;
        case "--exit-on-stdin-eof":
          exitOnStdinEof = true;
          break;
        default:
          usage("unknown argument " + args[i]);
      }
    }
    if (dir == null || ready == null || specFiles.isEmpty()) {
      usage("--dir, --ready and at least one --spec are required");
    }
    List<ClusterSpec> specs = new ArrayList<>();
    for (Path f : specFiles) {
      try {
        specs.add(ClusterSpec.read(f));
      } catch (IOException | RuntimeException e) {
        System.out.println("FAILED " + e);
        System.out.flush();
        System.exit(2);
      }
    }
    Files.createDirectories(dir);
    Harness h = new Harness(dir, ready, specs);
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
    System.out.printf("READY %.1fs %s%n", secs, ready);
    System.out.flush();
    LOG.info("clusters {} ready after {} s", h.clusters.keySet(), secs);
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

  private static String value(String[] args, int i, String flag) {
    if (i >= args.length) {
      usage(flag + " needs a value");
    }
    return args[i];
  }

  private static void usage(String why) {
    System.err.println("testenv harness: " + why);
    System.err.println(USAGE);
    System.exit(2);
  }

  private void start() throws Exception {
    // Start one after the other: MiniDFSCluster reads its base directory from a JVM-global
    // system property that the utility sets right before creating each cluster's DFS.
    for (MiniCluster c : clusters.values()) {
      c.start();
    }
    control = new Control(clusters, this::requestShutdown);
    control.start();
    writeReady();
  }

  private void writeReady() throws IOException {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("hbaseVersion", VersionInfo.getVersion());
    info.put("hadoopVersion", org.apache.hadoop.util.VersionInfo.getVersion());
    info.put("javaVersion", System.getProperty("java.version"));
    info.put("control", control.address());
    info.put("pid", ProcessHandle.current().pid());
    Map<String, Object> described = new LinkedHashMap<>();
    for (MiniCluster c : clusters.values()) {
      described.put(c.name, c.describe());
    }
    info.put("clusters", described);
    Gson gson = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();
    Path tmp = ready.resolveSibling(ready.getFileName() + ".tmp");
    try (OutputStream os = Files.newOutputStream(tmp)) {
      os.write(gson.toJson(info).getBytes(StandardCharsets.UTF_8));
    }
    Files.move(tmp, ready, StandardCopyOption.ATOMIC_MOVE);
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
      Files.deleteIfExists(ready);
    } catch (IOException e) {
      LOG.warn("remove {}", ready, e);
    }
    if (control != null) {
      control.stop();
    }
    // In the reverse order of their start (a target before its source).
    List<MiniCluster> order = new ArrayList<>(clusters.values());
    Collections.reverse(order);
    for (MiniCluster c : order) {
      c.stop();
    }
    LOG.info("stopped");
  }

  static Gson gson() {
    return new GsonBuilder().disableHtmlEscaping().create();
  }
}
