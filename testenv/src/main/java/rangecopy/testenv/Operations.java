package rangecopy.testenv;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.master.RegionState;
import org.apache.hadoop.hbase.master.assignment.RegionStates;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.JVMClusterUtil.RegionServerThread;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;

/** The cluster operations behind the control channel. */
final class Operations {
  private static final long WAIT_MS = TimeUnit.MINUTES.toMillis(3);

  Object status(MiniCluster c, Request req) throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    ClusterMetrics metrics = c.admin().getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS,
        ClusterMetrics.Option.DEAD_SERVERS, ClusterMetrics.Option.MASTER));
    List<String> live = new ArrayList<>();
    for (ServerName sn : metrics.getLiveServerMetrics().keySet()) {
      live.add(sn.toString());
    }
    List<String> dead = new ArrayList<>();
    for (ServerName sn : metrics.getDeadServerNames()) {
      dead.add(sn.toString());
    }
    m.put("master", metrics.getMasterName() == null ? "" : metrics.getMasterName().toString());
    m.put("liveRegionServers", live);
    m.put("deadRegionServers", dead);
    List<String> dns = new ArrayList<>();
    for (DatanodeInfo dn : c.dfs().getFileSystem().getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)) {
      dns.add(dn.getXferAddr());
    }
    m.put("liveDataNodes", dns);
    List<String> deadDns = new ArrayList<>();
    for (DatanodeInfo dn : c.dfs().getFileSystem().getDataNodeStats(HdfsConstants.DatanodeReportType.DEAD)) {
      deadDns.add(dn.getXferAddr());
    }
    m.put("deadDataNodes", deadDns);
    return m;
  }

  Object stopRegionServer(MiniCluster c, Request req) throws Exception {
    ServerName target = serverName(c, req.string("server"));
    List<RegionServerThread> threads = c.hbase().getRegionServerThreads();
    for (int i = 0; i < threads.size(); i++) {
      RegionServerThread t = threads.get(i);
      if (t.isAlive() && t.getRegionServer().getServerName().equals(target)) {
        evacuate(c, t, c.takePlaced(target));
        List<RegionInfo> hosted = new ArrayList<>();
        for (HRegion r : t.getRegionServer().getRegions()) {
          hosted.add(r.getRegionInfo());
        }
        if (req.bool("abort", false)) {
          // A crash: no region is closed or flushed, the master recovers them from the WAL.
          c.hbase().abortRegionServer(i);
        } else {
          c.hbase().stopRegionServer(i);
        }
        c.hbase().waitOnRegionServer(i);
        if (req.bool("wait", true)) {
          // The master reassigns the dead server's regions; tests start from a settled cluster.
          waitFor("master sees " + target + " gone", () -> !c.admin()
              .getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS))
              .getLiveServerMetrics().containsKey(target));
          RegionStates states = c.hbase().getMaster().getAssignmentManager().getRegionStates();
          for (RegionInfo ri : hosted) {
            waitFor("region " + ri.getEncodedName() + " of " + target + " open elsewhere", () -> {
              RegionState rs = states.getRegionState(ri);
              return rs != null && rs.isOpened() && rs.getServerName() != null
                  && !rs.getServerName().equals(target);
            });
          }
          c.util().waitUntilNoRegionsInTransition(WAIT_MS);
        }
        return Map.of("server", target.toString());
      }
    }
    throw new BadRequest("no live region server " + target + "; live: " + c.liveRegionServers());
  }

  /**
   * Moves off server every region of a table that no test moved there on purpose (a region of
   * another test's new table that HBase assigned to it), so that stopping it stops only the
   * stopping test's regions: the others only move, as they would for the balancer.
   */
  private void evacuate(MiniCluster c, RegionServerThread t, Set<TableName> own) throws Exception {
    ServerName from = t.getRegionServer().getServerName();
    // To one of the cluster's own servers, which no test stops.
    ServerName to = null;
    for (String s : c.liveRegionServers()) {
      ServerName sn = ServerName.valueOf(s);
      if (!sn.equals(from) && !c.startedByTest(sn)) {
        to = sn;
        break;
      }
    }
    // Until the server holds no region of another test: a region its own test splits, merges,
    // moves or drops meanwhile may refuse the move, go offline, or come back as daughters on
    // this server, so look again each round and ask again.
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (true) {
      List<RegionInfo> foreign = new ArrayList<>();
      for (HRegion r : t.getRegionServer().getRegions()) {
        if (!own.contains(r.getRegionInfo().getTable())) {
          foreign.add(r.getRegionInfo());
        }
      }
      if (foreign.isEmpty()) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("regions of other tests' tables still on " + from + " after " + WAIT_MS
            + " ms: " + foreign);
      }
      for (RegionInfo ri : foreign) {
        try {
          if (to == null) {
            c.admin().move(ri.getEncodedNameAsBytes());
          } else {
            c.admin().move(ri.getEncodedNameAsBytes(), to);
          }
        } catch (IOException e) {
          // In transition (its own test is moving or splitting it), or gone: look again.
        }
      }
      Thread.sleep(500);
    }
  }

  Object startRegionServer(MiniCluster c, Request req) throws Exception {
    RegionServerThread t = c.hbase().startRegionServer();
    t.waitForServerOnline();
    ServerName sn = t.getRegionServer().getServerName();
    waitFor("master sees " + sn, () -> c.admin()
        .getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS))
        .getLiveServerMetrics().containsKey(sn));
    c.started(sn);
    // A server a test starts is one that test will stop. HBase may assign it regions of other
    // tests' tables meanwhile (new tables' regions go round the live servers); before it stops,
    // every region of a table no test moved to it on purpose is moved off (evacuate), so that
    // stopping it stops only the stopping test's own regions.
    return Map.of("server", sn.toString());
  }

  Object stopDataNode(MiniCluster c, Request req) throws Exception {
    String addr = req.string("address");
    synchronized (c) {
      List<DataNode> dns = c.dfs().getDataNodes();
      for (int i = 0; i < dns.size(); i++) {
        DataNode dn = dns.get(i);
        if (dn.getDatanodeId().getXferAddr().equals(addr)) {
          MiniDFSCluster.DataNodeProperties props = c.dfs().stopDataNode(i);
          // Tell the NameNode at once instead of waiting out the heartbeat expiry.
          c.dfs().setDataNodeDead(dn.getDatanodeId());
          c.stoppedDataNodes().put(addr, props);
          return Map.of("address", addr);
        }
      }
    }
    throw new BadRequest("no running DataNode " + addr + "; running: " + c.liveDataNodes());
  }

  Object startDataNode(MiniCluster c, Request req) throws Exception {
    String addr = req.string("address");
    synchronized (c) {
      MiniDFSCluster.DataNodeProperties props = c.stoppedDataNodes().remove(addr);
      if (props == null) {
        throw new BadRequest("DataNode " + addr + " was not stopped through the control channel");
      }
      if (!c.dfs().restartDataNode(props, true)) {
        throw new IOException("DataNode " + addr + " did not restart");
      }
      c.dfs().waitActive();
    }
    waitFor("NameNode sees DataNode " + addr, () -> {
      for (DatanodeInfo dn : c.dfs().getFileSystem().getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)) {
        if (dn.getXferAddr().equals(addr)) {
          return true;
        }
      }
      return false;
    });
    return Map.of("address", addr);
  }

  Object createTable(MiniCluster c, Request req) throws Exception {
    TableName tn = tableName(req);
    Admin admin = c.admin();
    String ns = tn.getNamespaceAsString();
    if (!NamespaceDescriptor.DEFAULT_NAMESPACE_NAME_STR.equals(ns)) {
      try {
        admin.getNamespaceDescriptor(ns);
      } catch (NamespaceNotFoundException e) {
        admin.createNamespace(NamespaceDescriptor.create(ns).build());
      }
    }
    TableDescriptorBuilder tb = TableDescriptorBuilder.newBuilder(tn);
    if (req.array("families").isEmpty()) {
      throw new BadRequest("a table needs at least one family");
    }
    for (JsonElement e : req.array("families")) {
      Request f = Request.of(e, "a family");
      ColumnFamilyDescriptorBuilder fb = ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(f.string("name")));
      fb.setMaxVersions((int) f.number("maxVersions", 1));
      try {
        fb.setCompressionType(Compression.Algorithm.valueOf(f.string("compression", "NONE")));
        fb.setDataBlockEncoding(DataBlockEncoding.valueOf(f.string("encoding", "NONE")));
        fb.setBloomFilterType(BloomType.valueOf(f.string("bloom", "ROW")));
      } catch (IllegalArgumentException ex) {
        throw new BadRequest("family " + f.string("name") + ": " + ex.getMessage());
      }
      fb.setBlocksize((int) f.number("blockSize", 64 * 1024));
      if (f.has("ttl")) {
        fb.setTimeToLive((int) f.number("ttl", 0));
      }
      fb.setKeepDeletedCells(f.bool("keepDeletedCells", false)
          ? org.apache.hadoop.hbase.KeepDeletedCells.TRUE : org.apache.hadoop.hbase.KeepDeletedCells.FALSE);
      fb.setInMemory(f.bool("inMemory", false));
      fb.setScope((int) f.number("scope", 0));
      tb.setColumnFamily(fb.build());
    }
    // Compaction is off unless the test asks for it: HBase compacts a store on its own once it
    // holds a few flushes, and a major compaction (or a minor one that takes every file) drops
    // delete markers and the cells they mask, so a raw scan of a table that may compact changes
    // under the test. A test that compacts on purpose turns it on and compares what stays visible.
    tb.setCompactionEnabled(req.bool("compaction", false));
    if (req.bool("slowFlushable", false)) {
      tb.setCoprocessor(SlowFlush.class.getName());
    }
    List<byte[]> splits = req.byteList("splits");
    if (splits.isEmpty()) {
      admin.createTable(tb.build());
    } else {
      admin.createTable(tb.build(), splits.toArray(new byte[0][]));
    }
    c.util().waitTableAvailable(tn, WAIT_MS);
    return Map.of("table", tn.getNameAsString());
  }

  Object deleteTable(MiniCluster c, Request req) throws Exception {
    TableName tn = tableName(req);
    Admin admin = c.admin();
    if (!admin.tableExists(tn)) {
      return Map.of("table", tn.getNameAsString(), "existed", false);
    }
    if (admin.isTableEnabled(tn)) {
      admin.disableTable(tn);
    }
    admin.deleteTable(tn);
    return Map.of("table", tn.getNameAsString(), "existed", true);
  }

  Object regions(MiniCluster c, Request req) throws Exception {
    TableName tn = tableName(req);
    List<Map<String, Object>> out = new ArrayList<>();
    try (RegionLocator loc = c.connection().getRegionLocator(tn)) {
      loc.clearRegionLocationCache();
      for (HRegionLocation l : loc.getAllRegionLocations()) {
        RegionInfo ri = l.getRegion();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", Bytes.toStringBinary(ri.getRegionName()));
        m.put("encodedName", ri.getEncodedName());
        m.put("regionId", ri.getRegionId());
        m.put("startKey", b64(ri.getStartKey()));
        m.put("endKey", b64(ri.getEndKey()));
        m.put("server", l.getServerName() == null ? "" : l.getServerName().toString());
        out.add(m);
      }
    }
    return Map.of("regions", out);
  }

  Object split(MiniCluster c, Request req) throws Exception {
    TableName tn = tableName(req);
    byte[] key = req.bytes("key");
    if (key.length == 0) {
      throw new BadRequest("missing field \"key\": the split key");
    }
    RegionInfo parent;
    try (RegionLocator loc = c.connection().getRegionLocator(tn)) {
      parent = loc.getRegionLocation(key, true).getRegion();
    }
    if (Bytes.equals(parent.getStartKey(), key)) {
      throw new BadRequest("a region of " + tn + " already starts at " + Bytes.toStringBinary(key));
    }
    c.admin().splitRegionAsync(parent.getRegionName(), key).get(WAIT_MS, TimeUnit.MILLISECONDS);
    waitFor("a region of " + tn + " starts at " + Bytes.toStringBinary(key), () -> {
      try (RegionLocator loc = c.connection().getRegionLocator(tn)) {
        loc.clearRegionLocationCache();
        for (HRegionLocation l : loc.getAllRegionLocations()) {
          if (Bytes.equals(l.getRegion().getStartKey(), key) && l.getServerName() != null) {
            return true;
          }
        }
      }
      return false;
    });
    return Map.of("parent", parent.getEncodedName());
  }

  Object flush(MiniCluster c, Request req) throws Exception {
    c.admin().flush(tableName(req));
    return null;
  }

  Object slowFlush(MiniCluster c, Request req) throws Exception {
    TableName tn = tableName(req);
    if (!c.admin().getDescriptor(tn).hasCoprocessor(SlowFlush.class.getName())) {
      throw new BadRequest("table " + tn + " was not created slow-flushable (TableOptions.SlowFlushable)");
    }
    SlowFlush.set(c.configuration().get("hbase.rootdir"), tn.getNameAsString(), (long) req.number("ms", 0));
    return null;
  }

  Object compact(MiniCluster c, Request req) throws Exception {
    // Synchronous, region by region, in the region servers of this JVM. The compacted-away files
    // are archived at once rather than by the discharger chore minutes later, so a listing of the
    // store directory shows the result.
    TableName tn = tableName(req);
    if (!c.admin().getDescriptor(tn).isCompactionEnabled()) {
      throw new BadRequest("table " + tn + " has compaction off (COMPACTION_ENABLED false); a test that "
          + "compacts creates its table with compaction on");
    }
    c.util().compact(tn, req.bool("major", true));
    for (RegionServerThread t : c.hbase().getLiveRegionServerThreads()) {
      for (HRegion r : t.getRegionServer().getRegions(tn)) {
        for (HStore store : r.getStores()) {
          store.closeAndArchiveCompactedFiles();
        }
      }
    }
    return null;
  }

  Object mutate(MiniCluster c, Request req) throws Exception {
    TableName tn = tableName(req);
    List<Row> batch = new ArrayList<>();
    for (JsonElement e : req.array("cells")) {
      Request cell = Request.of(e, "a cell");
      byte[] row = cell.bytes("row");
      byte[] fam = cell.bytes("family");
      byte[] q = cell.bytes("qualifier");
      long ts = cell.number("timestamp", Long.MAX_VALUE);
      String type = cell.string("type", "Put");
      switch (type) {
        case "Put":
          batch.add(new Put(row).addColumn(fam, q, ts, cell.bytes("value")));
          break;
        case "Delete":
          batch.add(new Delete(row).addColumn(fam, q, ts));
          break;
        case "DeleteColumn":
          batch.add(new Delete(row).addColumns(fam, q, ts));
          break;
        case "DeleteFamily":
          batch.add(new Delete(row).addFamily(fam, ts));
          break;
        case "DeleteFamilyVersion":
          batch.add(new Delete(row).addFamilyVersion(fam, ts));
          break;
        default:
          throw new BadRequest("unknown cell type \"" + type
              + "\"; known: Put, Delete, DeleteColumn, DeleteFamily, DeleteFamilyVersion");
      }
    }
    try (Table t = c.connection().getTable(tn)) {
      Object[] results = new Object[batch.size()];
      t.batch(batch, results);
    }
    return Map.of("mutations", batch.size());
  }

  Object scan(MiniCluster c, Request req) throws Exception {
    TableName tn = tableName(req);
    Scan s = new Scan();
    s.setRaw(req.bool("raw", false));
    s.readVersions((int) req.number("maxVersions", Integer.MAX_VALUE));
    if (req.has("startRow")) {
      s.withStartRow(req.bytes("startRow"));
    }
    if (req.has("stopRow")) {
      s.withStopRow(req.bytes("stopRow"));
    }
    if (req.has("startTime") || req.has("endTime")) {
      s.setTimeRange(req.number("startTime", 0), req.number("endTime", Long.MAX_VALUE));
    }
    long limit = req.number("limit", 1_000_000);
    List<Map<String, Object>> cells = new ArrayList<>();
    // A region can move while it is scanned (the harness moves other tests' regions off a
    // region server a test stops); its scanner is then gone and the client is told with an
    // UnknownScannerException. Every Result is a whole row, so the scan goes on after the
    // last row it returned.
    byte[] lastRow = null;
    for (int attempt = 0; ; attempt++) {
      if (lastRow != null) {
        s.withStartRow(lastRow, false);
      }
      try (Table t = c.connection().getTable(tn); ResultScanner rs = t.getScanner(s)) {
        for (Result r : rs) {
          for (Cell cell : r.rawCells()) {
            if (cells.size() >= limit) {
              throw new BadRequest("scan of " + tn + " holds more than limit=" + limit + " cells");
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("row", b64(Arrays.copyOfRange(cell.getRowArray(), cell.getRowOffset(),
                cell.getRowOffset() + cell.getRowLength())));
            m.put("family", b64(Arrays.copyOfRange(cell.getFamilyArray(), cell.getFamilyOffset(),
                cell.getFamilyOffset() + cell.getFamilyLength())));
            m.put("qualifier", b64(Arrays.copyOfRange(cell.getQualifierArray(), cell.getQualifierOffset(),
                cell.getQualifierOffset() + cell.getQualifierLength())));
            m.put("timestamp", cell.getTimestamp());
            m.put("type", KeyValue.Type.codeToType(cell.getTypeByte()).name());
            m.put("value", b64(Arrays.copyOfRange(cell.getValueArray(), cell.getValueOffset(),
                cell.getValueOffset() + cell.getValueLength())));
            cells.add(m);
          }
          lastRow = r.getRow();
        }
        break;
      } catch (RuntimeException | java.io.IOException e) {
        if (attempt >= 10 || !scannerGone(e)) {
          throw e;
        }
        org.slf4j.LoggerFactory.getLogger(Operations.class)
            .info("scan of {}: the scanner went away (a region moved); going on after the last row", tn);
        Thread.sleep(200);
      }
    }
    return Map.of("cells", cells);
  }

  /** Reports whether e is, or is caused by, a scanner the region server no longer has. */
  private static boolean scannerGone(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.apache.hadoop.hbase.UnknownScannerException) {
        return true;
      }
    }
    return false;
  }

  /** Closes a region and leaves it closed (offline) until region/assign. */
  Object unassign(MiniCluster c, Request req) throws Exception {
    String encoded = req.string("region");
    RegionState state = c.hbase().getMaster().getAssignmentManager().getRegionStates().getRegionState(encoded);
    if (state == null) {
      throw new BadRequest("no region " + encoded + " is known to the master");
    }
    c.admin().unassign(state.getRegion().getRegionName(), true);
    waitFor("region " + encoded + " offline", () -> locate(c, encoded) == null);
    return Map.of("region", encoded);
  }

  /** Opens a closed region again, on a server the master picks. */
  Object assign(MiniCluster c, Request req) throws Exception {
    String encoded = req.string("region");
    RegionState state = c.hbase().getMaster().getAssignmentManager().getRegionStates().getRegionState(encoded);
    if (state == null) {
      throw new BadRequest("no region " + encoded + " is known to the master");
    }
    c.admin().assign(state.getRegion().getRegionName());
    waitFor("region " + encoded + " open", () -> locate(c, encoded) != null);
    return Map.of("region", encoded, "server", locate(c, encoded).toString());
  }

  Object move(MiniCluster c, Request req) throws Exception {
    String encoded = req.string("region");
    ServerName dest;
    if (req.has("server")) {
      dest = serverName(c, req.string("server"));
    } else {
      dest = null;
    }
    ServerName current = locate(c, encoded);
    if (current == null) {
      throw new BadRequest("no region " + encoded + " is assigned");
    }
    if (dest == null) {
      for (String s : c.liveRegionServers()) {
        ServerName sn = ServerName.valueOf(s);
        if (!sn.equals(current)) {
          dest = sn;
          break;
        }
      }
      if (dest == null) {
        throw new BadRequest("no other live region server to move " + encoded + " to");
      }
    }
    final ServerName to = dest;
    RegionState state = c.hbase().getMaster().getAssignmentManager().getRegionStates().getRegionState(encoded);
    if (state == null) {
      throw new BadRequest("no region " + encoded + " is known to the master");
    }
    // A region server that has just joined may not take the region on the first try: ask again
    // while the region is open elsewhere and not yet on the destination.
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (true) {
      c.admin().move(Bytes.toBytes(encoded), to);
      try {
        waitFor("region " + encoded + " on " + to, 30_000, () -> to.equals(locate(c, encoded)));
        break;
      } catch (IOException e) {
        if (System.currentTimeMillis() > deadline) {
          throw e;
        }
      }
    }
    c.placed(to, state.getRegion().getTable());
    return Map.of("region", encoded, "from", current.toString(), "server", to.toString());
  }

  Object createSnapshot(MiniCluster c, Request req) throws Exception {
    TableName tn = tableName(req);
    String name = req.string("snapshot");
    c.admin().snapshot(name, tn);
    return Map.of("snapshot", name);
  }

  Object cloneSnapshot(MiniCluster c, Request req) throws Exception {
    TableName tn = tableName(req);
    c.admin().cloneSnapshot(req.string("snapshot"), tn);
    c.util().waitTableAvailable(tn, WAIT_MS);
    return Map.of("table", tn.getNameAsString());
  }

  Object deleteSnapshot(MiniCluster c, Request req) throws Exception {
    c.admin().deleteSnapshot(req.string("snapshot"));
    return null;
  }

  private static ServerName locate(MiniCluster c, String encoded) throws IOException {
    for (RegionServerThread t : c.hbase().getLiveRegionServerThreads()) {
      if (t.getRegionServer().getRegion(encoded) != null) {
        return t.getRegionServer().getServerName();
      }
    }
    return null;
  }

  /** Accepts a full server name (host,port,startcode) or host:port of a live region server. */
  private static ServerName serverName(MiniCluster c, String s) {
    for (String live : c.liveRegionServers()) {
      ServerName sn = ServerName.valueOf(live);
      if (live.equals(s) || sn.getAddress().toString().equals(s)) {
        return sn;
      }
    }
    throw new BadRequest("no live region server " + s + "; live: " + c.liveRegionServers());
  }

  private static TableName tableName(Request req) {
    String t = req.string("table");
    try {
      return TableName.valueOf(t);
    } catch (IllegalArgumentException e) {
      throw new BadRequest("bad table name \"" + t + "\": " + e.getMessage());
    }
  }

  private static String b64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }

  /** A condition polled until it holds. */
  @FunctionalInterface
  interface Condition {
    boolean holds() throws Exception;
  }

  static void waitFor(String what, Condition cond) throws Exception {
    waitFor(what, WAIT_MS, cond);
  }

  static void waitFor(String what, long waitMs, Condition cond) throws Exception {
    long deadline = System.currentTimeMillis() + waitMs;
    long pause = 50;
    while (!cond.holds()) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("timed out after " + waitMs + " ms waiting for " + what);
      }
      Thread.sleep(pause);
      pause = Math.min(pause * 2, 1000);
    }
  }
}
