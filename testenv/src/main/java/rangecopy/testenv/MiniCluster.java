package rangecopy.testenv;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.apache.hadoop.hbase.util.JVMClusterUtil.RegionServerThread;
import org.apache.hadoop.hbase.zookeeper.ZKConfig;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One HBase mini cluster: its own ZooKeeper, HDFS (3 DataNodes) and HBase (1 master, 2 RS). */
final class MiniCluster {
  private static final Logger LOG = LoggerFactory.getLogger(MiniCluster.class);

  static final int DATA_NODES = 3;
  static final int REGION_SERVERS = 2;

  final String name;
  private final Path stateDir;
  private HBaseTestingUtility util;
  /** Stopped DataNodes by transfer address, so they can be started again on the same port. */
  private final Map<String, MiniDFSCluster.DataNodeProperties> stoppedDataNodes = new HashMap<>();
  // The tables whose regions a test moved on purpose to each region server it started.
  private final Map<ServerName, Set<TableName>> placed = new HashMap<>();
  // The region servers tests started (regionserver/start), as opposed to the cluster's own.
  private final Set<ServerName> started = new HashSet<>();

  private final ClusterSpec spec;

  MiniCluster(ClusterSpec spec, Path stateDir) {
    this.spec = spec;
    this.name = spec.name;
    this.stateDir = stateDir;
  }

  void start() throws Exception {
    long t0 = System.nanoTime();
    if (spec.secure) {
      throw new UnsupportedOperationException("cluster " + name + ": secure clusters (Kerberos) are not built yet");
    }
    // Each cluster keeps its data under the state directory the caller owns.
    System.setProperty("test.build.data.basedirectory", stateDir.resolve("data").resolve(name).toString());
    util = new HBaseTestingUtility(conf(spec));
    StartMiniClusterOption opt = StartMiniClusterOption.builder()
        .numMasters(1)
        .numRegionServers(REGION_SERVERS)
        .numDataNodes(DATA_NODES)
        .numZkServers(1)
        .build();
    util.startMiniCluster(opt);
    // Regions stay where tests put them.
    util.getAdmin().balancerSwitch(false, true);
    writeConfDir(stateDir.resolve(name + "-conf"));
    LOG.info("cluster {} up in {} s", name, (System.nanoTime() - t0) / 1e9);
  }

  private static Configuration conf(ClusterSpec spec) {
    Configuration c = HBaseConfiguration.create();
    // Bind and advertise loopback names that every client on this machine resolves.
    c.set("hbase.unsafe.regionserver.hostname", "localhost");
    c.set("hbase.master.hostname", "localhost");
    c.setInt("hbase.master.info.port", -1);
    c.setInt("hbase.regionserver.info.port", -1);
    c.setInt("hbase.regionserver.handler.count", 10);
    c.setInt("hbase.master.handler.count", 10);
    // A JVM may hold both clusters (four region servers, with the DataNodes and the tools'
    // MapReduce jobs): keep caches small.
    c.setFloat("hfile.block.cache.size", 0.05f);
    c.setFloat("hbase.regionserver.global.memstore.size", 0.1f);
    // HDFS: replication 2 over 3 DataNodes, so one can die while tests of other packages keep
    // writing: with only 2, a stopped DataNode left every new block (a master's or a region
    // server's WAL roll) one node, and once the client excluded that one, nowhere to go (the
    // master aborted: "could only be written to 0 of the 1 minReplication nodes"). Notice a
    // dead DataNode quickly.
    c.setInt("dfs.replication", 2);
    c.setInt("dfs.namenode.handler.count", 5);
    c.setLong("dfs.heartbeat.interval", 1);
    c.setInt("dfs.namenode.heartbeat.recheck-interval", 3000);
    c.setInt("dfs.client.retry.window.base", 100);
    // Let the tools' MapReduce jobs run in this JVM.
    c.set("mapreduce.framework.name", "local");
    // A region server a test aborts may leave threads behind that never end. HBase's abort
    // monitor then exits the process after hbase.regionserver.abort.timeout (20 min): here
    // that is this JVM, with the cluster and every other test's tables in it. Log instead.
    c.set("hbase.regionserver.abort.timeout.task", LogAbortTimeout.class.getName());
    // The spec's own site properties win over the defaults above.
    for (Map.Entry<String, String> e : spec.site.entrySet()) {
      c.set(e.getKey(), e.getValue());
    }
    return c;
  }

  private void writeConfDir(Path dir) throws IOException {
    Files.createDirectories(dir);
    try (OutputStream os = Files.newOutputStream(dir.resolve("hbase-site.xml"))) {
      util.getConfiguration().writeXml(os);
    }
    String core = "<?xml version=\"1.0\"?>\n<configuration>\n"
        + "  <property><name>fs.defaultFS</name><value>" + fsDefaultFS() + "</value></property>\n"
        + "</configuration>\n";
    Files.write(dir.resolve("core-site.xml"), core.getBytes(StandardCharsets.UTF_8));
  }

  void stop() {
    if (util == null) {
      return;
    }
    try {
      util.shutdownMiniCluster();
    } catch (Throwable t) {
      LOG.warn("shut down cluster {}", name, t);
    }
  }

  Configuration configuration() {
    return util.getConfiguration();
  }

  HBaseTestingUtility util() {
    return util;
  }

  Connection connection() throws IOException {
    return util.getConnection();
  }

  Admin admin() throws IOException {
    return util.getAdmin();
  }

  MiniHBaseCluster hbase() {
    return util.getMiniHBaseCluster();
  }

  MiniDFSCluster dfs() {
    return util.getDFSCluster();
  }

  String fsDefaultFS() {
    return util.getConfiguration().get("fs.defaultFS");
  }

  /** Records a region server a test started. */
  synchronized void started(ServerName server) {
    started.add(server);
  }

  /** Reports whether a test started server (it will stop it). */
  synchronized boolean startedByTest(ServerName server) {
    return started.contains(server);
  }

  /** Records that a test moved a region of table to server on purpose. */
  synchronized void placed(ServerName server, TableName table) {
    placed.computeIfAbsent(server, k -> new HashSet<>()).add(table);
  }

  /** The tables whose regions tests moved to server on purpose; forgets them. */
  synchronized Set<TableName> takePlaced(ServerName server) {
    Set<TableName> s = placed.remove(server);
    return s == null ? Set.of() : s;
  }

  synchronized Map<String, MiniDFSCluster.DataNodeProperties> stoppedDataNodes() {
    return stoppedDataNodes;
  }

  Map<String, Object> describe() throws IOException {
    Configuration c = util.getConfiguration();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("zkQuorum", "127.0.0.1:" + util.getZkCluster().getClientPort());
    m.put("znodeParent", c.get(HConstants.ZOOKEEPER_ZNODE_PARENT, HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT));
    m.put("clusterKey", ZKConfig.getZooKeeperClusterKey(c));
    m.put("fsDefaultFS", fsDefaultFS());
    m.put("nameNode", "127.0.0.1:" + dfs().getNameNodePort());
    m.put("hbaseRootDir", CommonFSUtils.getRootDir(c).toString());
    m.put("master", hbase().getMaster().getServerName().toString());
    m.put("regionServers", liveRegionServers());
    m.put("dataNodes", liveDataNodes());
    m.put("user", System.getProperty("user.name"));
    m.put("confDir", stateDir.resolve(name + "-conf").toString());
    return m;
  }

  List<String> liveRegionServers() {
    List<String> out = new ArrayList<>();
    for (RegionServerThread t : hbase().getLiveRegionServerThreads()) {
      out.add(t.getRegionServer().getServerName().toString());
    }
    return out;
  }

  List<String> liveDataNodes() {
    List<String> out = new ArrayList<>();
    for (DataNode dn : dfs().getDataNodes()) {
      out.add(dn.getDatanodeId().getXferAddr());
    }
    return out;
  }
}
