package rangecopy.testenv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * What one cluster of the harness is, as the Go side (testenv.ClusterSpec) writes it to a JSON file
 * passed with --spec: its name ("source" or "target"), whether it is secured, and site properties
 * set over the harness's defaults. The fields that choose the JVM itself (classpath, Java home,
 * heap) are read by the Go side only; unknown fields are ignored here.
 */
final class ClusterSpec {
  final String name;
  final boolean secure;
  final Map<String, String> site;

  ClusterSpec(String name, boolean secure, Map<String, String> site) {
    this.name = name;
    this.secure = secure;
    this.site = site;
  }

  /** Reads a spec file; a missing or malformed field is an IllegalArgumentException naming it. */
  static ClusterSpec read(Path file) throws IOException {
    String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    JsonObject o;
    try {
      o = JsonParser.parseString(text).getAsJsonObject();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("cluster spec " + file + " is not a JSON object: " + e.getMessage(), e);
    }
    if (!o.has("name") || !o.get("name").isJsonPrimitive() || o.get("name").getAsString().isEmpty()) {
      throw new IllegalArgumentException("cluster spec " + file + " has no name");
    }
    String name = o.get("name").getAsString();
    if (!name.matches("[a-z][a-z0-9-]*")) {
      throw new IllegalArgumentException("cluster spec " + file + ": bad name \"" + name + "\"");
    }
    boolean secure = o.has("secure") && o.get("secure").getAsBoolean();
    Map<String, String> site = new LinkedHashMap<>();
    if (o.has("site") && !o.get("site").isJsonNull()) {
      if (!o.get("site").isJsonObject()) {
        throw new IllegalArgumentException("cluster spec " + file + ": site must be an object of strings");
      }
      for (Map.Entry<String, JsonElement> e : o.getAsJsonObject("site").entrySet()) {
        site.put(e.getKey(), e.getValue().getAsString());
      }
    }
    return new ClusterSpec(name, secure, site);
  }
}
