package rangecopy.testenv;

import java.util.Random;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.Tool;

/**
 * Writes a large table through HBase's normal write path, fast (in the harness JVM, through a
 * BufferedMutator), for measurements on gigabytes of data, then flushes it:
 *
 * <pre>
 *   TABLE FAMILY ROWS VALUESIZE
 * </pre>
 *
 * Row keys are "%016x" of a spread of i (so every region of a table pre-split on hex digits gets
 * rows), one cell "FAMILY:q" each, values of random bytes (incompressible). Prints RESULT
 * rows=N bytes=N seconds=S.
 */
public final class LoadTable extends Configured implements Tool {
  @Override
  public int run(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: TABLE FAMILY ROWS VALUESIZE");
      return 2;
    }
    TableName tn = TableName.valueOf(args[0]);
    byte[] family = Bytes.toBytes(args[1]);
    long rows = Long.parseLong(args[2]);
    int valueSize = Integer.parseInt(args[3]);
    byte[] q = Bytes.toBytes("q");
    Random rnd = new Random(1);
    long t0 = System.nanoTime();
    long bytes = 0;
    try (Connection conn = ConnectionFactory.createConnection(getConf());
        BufferedMutator m = conn.getBufferedMutator(new BufferedMutatorParams(tn).writeBufferSize(8 << 20))) {
      for (long i = 0; i < rows; i++) {
        // Multiplying by an odd constant spreads consecutive i over the key space.
        byte[] row = Bytes.toBytes(String.format("%016x", i * 0x9E3779B97F4A7C15L));
        byte[] value = new byte[valueSize];
        rnd.nextBytes(value);
        m.mutate(new Put(row).addColumn(family, q, value));
        bytes += row.length + valueSize;
      }
      m.flush();
      try (Admin admin = conn.getAdmin()) {
        admin.flush(tn);
      }
    }
    System.out.printf("RESULT rows=%d bytes=%d seconds=%.3f%n", rows, bytes, (System.nanoTime() - t0) / 1e9);
    return 0;
  }
}
