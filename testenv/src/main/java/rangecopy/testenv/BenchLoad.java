package rangecopy.testenv;

import java.util.Random;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.Tool;

/**
 * Writes the benchmark table's rows FROM to TO (of ROWS) through HBase's normal write path (a
 * BufferedMutator, memstores, WAL), then flushes the table, unless the optional last argument
 * is "memstore" (the rows then stay in the memstores, where an application's recent writes are):
 *
 * <pre>
 *   TABLE ROWS FROM TO START_MS SPAN_MS DVALUE MVALUE [memstore]
 * </pre>
 *
 * Row i has the 100-byte key "%016x-%083d" of (i * 0x9E3779B97F4A7C15, i), so consecutive rows
 * spread over a table pre-split on the first hex digit, and the Go benchmark can name any existing
 * row. It gets one cell "d:v" of DVALUE random bytes and one cell "m:v" of MVALUE random bytes,
 * both with timestamp START_MS + i * SPAN_MS / ROWS: rows written later are newer. Prints RESULT
 * rows=N bytes=N seconds=S.
 */
public final class BenchLoad extends Configured implements Tool {
  @Override
  public int run(String[] args) throws Exception {
    if (args.length != 8 && !(args.length == 9 && args[8].equals("memstore"))) {
      System.err.println("usage: TABLE ROWS FROM TO START_MS SPAN_MS DVALUE MVALUE [memstore]");
      return 2;
    }
    boolean flush = args.length == 8;
    TableName tn = TableName.valueOf(args[0]);
    long rows = Long.parseLong(args[1]);
    long from = Long.parseLong(args[2]);
    long to = Long.parseLong(args[3]);
    long start = Long.parseLong(args[4]);
    long span = Long.parseLong(args[5]);
    int dSize = Integer.parseInt(args[6]);
    int mSize = Integer.parseInt(args[7]);
    byte[] d = Bytes.toBytes("d");
    byte[] m = Bytes.toBytes("m");
    byte[] q = Bytes.toBytes("v");
    Random rnd = new Random(from);
    long t0 = System.nanoTime();
    long bytes = 0;
    try (Connection conn = ConnectionFactory.createConnection(getConf());
        BufferedMutator bm = conn.getBufferedMutator(new BufferedMutatorParams(tn).writeBufferSize(8 << 20))) {
      for (long i = from; i < to; i++) {
        byte[] row = Bytes.toBytes(String.format("%016x-%083d", i * 0x9E3779B97F4A7C15L, i));
        long ts = start + (long) ((double) i * span / rows);
        byte[] dv = new byte[dSize];
        rnd.nextBytes(dv);
        byte[] mv = new byte[mSize];
        rnd.nextBytes(mv);
        Put p = new Put(row).addColumn(d, q, ts, dv).addColumn(m, q, ts, mv);
        p.setDurability(Durability.SYNC_WAL);
        bm.mutate(p);
        bytes += 2L * row.length + dSize + mSize;
      }
      bm.flush();
      if (flush) {
        try (Admin admin = conn.getAdmin()) {
          admin.flush(tn);
        }
      }
    }
    System.out.printf("RESULT rows=%d bytes=%d seconds=%.3f%n", to - from, bytes, (System.nanoTime() - t0) / 1e9);
    return 0;
  }
}
