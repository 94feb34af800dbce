package rangecopy.testenv;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.apache.log4j.Level;
import org.apache.log4j.PatternLayout;
import org.apache.log4j.WriterAppender;

/**
 * Runs a named Java class inside the harness JVM against one cluster's configuration: a Hadoop
 * {@link Tool} through ToolRunner (so generic options such as -D key=value come first), or else a
 * class with a static main(String[]) that returns normally. Standard output, standard error and the
 * INFO log lines written meanwhile (MapReduce job counters, for one) are returned as the output.
 * Runs one at a time, since standard output and the root logger are process-wide: a MapReduce job
 * run meanwhile (MapReduceOps, which takes the same LOCK) would log its counters into this tool's
 * output (a test that looked for "ERROR" in HFilePrettyPrinter's output found another job's
 * IO_ERROR=0, and a SyncTable's counters were another SyncTable's).
 *
 * <p>Request fields: cluster, class, args (strings), classpath (directories or jars to load the
 * class from, for fixture writers compiled after the harness started).
 */
final class Tools {
  /** Held by every run of a class in the harness JVM (Tools, MapReduceOps). */
  static final Object LOCK = new Object();

  Object run(MiniCluster c, Request req) throws Exception {
    String className = req.string("class");
    List<String> args = req.strings("args");
    List<String> classpath = req.strings("classpath");
    ClassLoader parent = Tools.class.getClassLoader();
    ClassLoader loader = parent;
    if (!classpath.isEmpty()) {
      URL[] urls = new URL[classpath.size()];
      for (int i = 0; i < urls.length; i++) {
        urls[i] = Paths.get(classpath.get(i)).toUri().toURL();
      }
      loader = new URLClassLoader(urls, parent);
    }
    Class<?> cls;
    try {
      cls = Class.forName(className, true, loader);
    } catch (ClassNotFoundException e) {
      throw new BadRequest("no class " + className + " on the harness classpath" + (classpath.isEmpty()
          ? "" : " or in " + classpath));
    }
    Configuration conf = new Configuration(c.configuration());
    conf.setClassLoader(loader);

    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int exit;
    synchronized (LOCK) {
      PrintStream oldOut = System.out;
      PrintStream oldErr = System.err;
      ClassLoader oldCtx = Thread.currentThread().getContextClassLoader();
      PrintStream capture = new PrintStream(buf, true, StandardCharsets.UTF_8);
      WriterAppender logs = new WriterAppender(new PatternLayout("%p %c{1}: %m%n"), capture);
      logs.setThreshold(Level.INFO);
      org.apache.log4j.Logger root = org.apache.log4j.Logger.getRootLogger();
      System.setOut(capture);
      System.setErr(capture);
      root.addAppender(logs);
      Thread.currentThread().setContextClassLoader(loader);
      try {
        exit = invoke(cls, conf, args.toArray(new String[0]), capture);
      } finally {
        Thread.currentThread().setContextClassLoader(oldCtx);
        root.removeAppender(logs);
        System.setOut(oldOut);
        System.setErr(oldErr);
        capture.flush();
      }
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("exitCode", exit);
    m.put("output", buf.toString(StandardCharsets.UTF_8));
    return m;
  }

  private static int invoke(Class<?> cls, Configuration conf, String[] args, PrintStream out) {
    try {
      if (Tool.class.isAssignableFrom(cls)) {
        Tool tool = newTool(cls, conf);
        return ToolRunner.run(conf, tool, args);
      }
      Method main = cls.getMethod("main", String[].class);
      if (!Modifier.isStatic(main.getModifiers())) {
        throw new BadRequest(cls.getName() + " is neither a Tool nor has a static main");
      }
      main.invoke(null, (Object) args);
      return 0;
    } catch (NoSuchMethodException e) {
      throw new BadRequest(cls.getName() + " is neither a Tool nor has a static main");
    } catch (InvocationTargetException e) {
      e.getCause().printStackTrace(new PrintWriter(out, true));
      return 1;
    } catch (BadRequest e) {
      throw e;
    } catch (Exception e) {
      e.printStackTrace(new PrintWriter(out, true));
      return 1;
    }
  }

  private static Tool newTool(Class<?> cls, Configuration conf) throws Exception {
    try {
      Constructor<?> k = cls.getConstructor(Configuration.class);
      return (Tool) k.newInstance(conf);
    } catch (NoSuchMethodException e) {
      Tool t = (Tool) cls.getConstructor().newInstance();
      t.setConf(conf);
      return t;
    }
  }
}
