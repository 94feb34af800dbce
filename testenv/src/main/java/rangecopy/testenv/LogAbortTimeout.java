package rangecopy.testenv;

import java.util.TimerTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an aborted region server's abort monitor does when the abort takes longer than
 * hbase.regionserver.abort.timeout: log it. HBase's default exits the process, which in the
 * test environment is the JVM that runs both clusters for every test.
 */
public final class LogAbortTimeout extends TimerTask {
  private static final Logger LOG = LoggerFactory.getLogger(LogAbortTimeout.class);

  @Override
  public void run() {
    LOG.warn("an aborted region server is still shutting down after the abort timeout; the test environment keeps running");
  }
}
