package rangecopy.testenv;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control channel: a small HTTP server on loopback. Every operation is POST /op/name with a
 * JSON object body that names the cluster ("source" or "target"; one this JVM runs) and the
 * operation's arguments;
 * the answer is a JSON object, with status 400 for a bad request and 500 for a failure, whose
 * "error" field says what went wrong. Byte strings (row keys, values) travel as standard base64.
 */
final class Control {
  private static final Logger LOG = LoggerFactory.getLogger(Control.class);

  /** One operation of the control channel. */
  @FunctionalInterface
  interface Op {
    Object run(MiniCluster cluster, Request req) throws Exception;
  }

  private final Map<String, MiniCluster> clusters;
  private final Runnable shutdown;
  private final Map<String, Op> ops = new LinkedHashMap<>();
  private HttpServer server;
  private ExecutorService pool;

  Control(Map<String, MiniCluster> clusters, Runnable shutdown) {
    this.clusters = clusters;
    this.shutdown = shutdown;
    Operations o = new Operations();
    ops.put("status", o::status);
    ops.put("regionserver/stop", o::stopRegionServer);
    ops.put("regionserver/start", o::startRegionServer);
    ops.put("datanode/stop", o::stopDataNode);
    ops.put("datanode/start", o::startDataNode);
    ops.put("table/create", o::createTable);
    ops.put("table/delete", o::deleteTable);
    ops.put("table/regions", o::regions);
    ops.put("table/split", o::split);
    ops.put("table/flush", o::flush);
    ops.put("table/compact", o::compact);
    ops.put("table/slowflush", o::slowFlush);
    ops.put("table/mutate", o::mutate);
    ops.put("table/scan", o::scan);
    ops.put("region/move", o::move);
    ops.put("region/unassign", o::unassign);
    ops.put("region/assign", o::assign);
    ops.put("snapshot/create", o::createSnapshot);
    ops.put("snapshot/delete", o::deleteSnapshot);
    ops.put("snapshot/clone", o::cloneSnapshot);
    ops.put("tool", new Tools()::run);
    ops.put("cpu", new Cpu()::cpu);
    MapReduceOps mr = new MapReduceOps(clusters);
    ops.put("mapreduce/hashtable", mr::hashTable);
    ops.put("mapreduce/synctable", mr::syncTable);
  }

  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    // Several tests drive the clusters at once; a long tool run must not block a status query.
    pool = Executors.newFixedThreadPool(8, r -> {
      Thread t = new Thread(r, "control");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(pool);
    server.createContext("/op/", this::handle);
    server.createContext("/watch", this::watch);
    server.createContext("/shutdown", ex -> {
      respond(ex, 200, Map.of("ok", true));
      shutdown.run();
    });
    server.start();
    LOG.info("control channel on {}", address());
  }

  String address() {
    InetSocketAddress a = server.getAddress();
    return a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  void stop() {
    if (server != null) {
      server.stop(0);
    }
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  /**
   * POST /watch {"pids": [...]}: the other harness JVMs of the environment. When one of them ends
   * (it crashed, or was killed), this JVM shuts its clusters down and exits too, so that no half
   * environment is left running; a pid already gone ends this JVM at once.
   */
  private void watch(HttpExchange ex) throws IOException {
    List<Long> pids = new ArrayList<>();
    try (InputStream in = ex.getRequestBody()) {
      JsonObject body = JsonParser.parseString(new String(in.readAllBytes(), StandardCharsets.UTF_8)).getAsJsonObject();
      for (JsonElement e : body.getAsJsonArray("pids")) {
        pids.add(e.getAsLong());
      }
    } catch (RuntimeException e) {
      respond(ex, 400, Map.of("error", "watch: body must be {\"pids\": [numbers]}: " + e.getMessage()));
      return;
    }
    for (long pid : pids) {
      Optional<ProcessHandle> ph = ProcessHandle.of(pid);
      if (ph.isEmpty()) {
        peerGone(pid);
        continue;
      }
      ph.get().onExit().thenRun(() -> peerGone(pid));
      LOG.info("watching harness JVM {}", pid);
    }
    respond(ex, 200, Map.of("ok", true));
  }

  private void peerGone(long pid) {
    LOG.error("harness JVM {} (another cluster of this environment) has ended; stopping this one too", pid);
    Thread t = new Thread(() -> System.exit(3), "peer-gone");
    t.start();
  }

  private void handle(HttpExchange ex) throws IOException {
    String name = ex.getRequestURI().getPath().substring("/op/".length());
    try {
      if (!"POST".equals(ex.getRequestMethod())) {
        throw new BadRequest("use POST, not " + ex.getRequestMethod());
      }
      Op op = ops.get(name);
      if (op == null) {
        throw new BadRequest("unknown operation " + name + "; known: " + ops.keySet());
      }
      JsonObject body;
      try (InputStream in = ex.getRequestBody()) {
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        body = text.isBlank() ? new JsonObject() : JsonParser.parseString(text).getAsJsonObject();
      } catch (RuntimeException e) {
        throw new BadRequest("body is not a JSON object: " + e.getMessage());
      }
      Request req = new Request(body);
      String clusterName = req.string("cluster");
      MiniCluster cluster = clusters.get(clusterName);
      if (cluster == null) {
        throw new BadRequest("cluster \"" + clusterName + "\" does not run in this JVM; it runs " + clusters.keySet());
      }
      long t0 = System.nanoTime();
      Object result = op.run(cluster, req);
      LOG.info("{} on {}: done in {} ms", name, clusterName, (System.nanoTime() - t0) / 1_000_000);
      respond(ex, 200, result == null ? Map.of("ok", true) : result);
    } catch (BadRequest e) {
      respond(ex, 400, Map.of("error", e.getMessage()));
    } catch (Throwable t) {
      LOG.warn("{} failed", name, t);
      StringWriter sw = new StringWriter();
      t.printStackTrace(new PrintWriter(sw));
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("error", name + ": " + t);
      m.put("stack", sw.toString());
      respond(ex, 500, m);
    }
  }

  private static void respond(HttpExchange ex, int status, Object body) throws IOException {
    byte[] out = Harness.gson().toJson(body).getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, out.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(out);
    }
  }
}
