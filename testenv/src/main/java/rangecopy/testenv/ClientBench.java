package rangecopy.testenv;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.Tool;

/**
 * HBase's own Java client doing what rangecopy's Go client benchmarks do, timed the same way, so
 * a Go benchmark can report both from one run. Run through the control channel's tool operation:
 *
 * <pre>
 *   scan TABLE CACHING                    full-table scan, every cell counted
 *   put TABLE FIRST ROWS BATCH VALUESIZE  rows of one cell "f:q", in batches of BATCH puts
 * </pre>
 *
 * Prints one line: RESULT cells=N bytes=N seconds=S. Rows and sizes match the Go benchmark's
 * (row "r%x%07d" of i%16 and i), bytes count row, family, qualifier, value and 12 for timestamp
 * and type, as the Go side does.
 */
public final class ClientBench extends Configured implements Tool {
  @Override
  public int run(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: scan TABLE CACHING | put TABLE FIRST ROWS BATCH VALUESIZE");
      return 2;
    }
    TableName tn = TableName.valueOf(args[1]);
    // A connection of its own, as a client process would have.
    try (Connection conn = ConnectionFactory.createConnection(getConf());
        Table table = conn.getTable(tn)) {
      long cells = 0;
      long bytes = 0;
      long t0;
      switch (args[0]) {
        case "scan": {
          Scan s = new Scan().setCaching(Integer.parseInt(args[2]));
          t0 = System.nanoTime();
          try (ResultScanner rs = table.getScanner(s)) {
            for (Result r : rs) {
              for (Cell c : r.rawCells()) {
                cells++;
                bytes += c.getRowLength() + c.getFamilyLength() + c.getQualifierLength() + c.getValueLength() + 12;
              }
            }
          }
          break;
        }
        case "put": {
          int first = Integer.parseInt(args[2]);
          int rows = Integer.parseInt(args[3]);
          int batch = Integer.parseInt(args[4]);
          byte[] value = new byte[Integer.parseInt(args[5])];
          byte[] f = Bytes.toBytes("f");
          byte[] q = Bytes.toBytes("q");
          t0 = System.nanoTime();
          List<Put> puts = new ArrayList<>(batch);
          for (int i = first; i < first + rows; i++) {
            puts.add(new Put(Bytes.toBytes(String.format("r%x%07d", i % 16, i))).addColumn(f, q, value));
            if (puts.size() == batch) {
              table.put(puts);
              cells += puts.size();
              puts = new ArrayList<>(batch);
            }
          }
          if (!puts.isEmpty()) {
            table.put(puts);
            cells += puts.size();
          }
          bytes = cells * value.length;
          break;
        }
        default:
          System.err.println("unknown mode " + args[0]);
          return 2;
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      System.out.printf("RESULT cells=%d bytes=%d seconds=%.6f%n", cells, bytes, secs);
      return 0;
    }
  }
}
