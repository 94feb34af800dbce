package rangecopy.testenv;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;

/** The JSON body of a control request, with accessors that name a missing or bad field. */
final class Request {
  private final JsonObject body;

  Request(JsonObject body) {
    this.body = body;
  }

  static Request of(JsonElement e, String what) {
    if (e == null || !e.isJsonObject()) {
      throw new BadRequest(what + " must be a JSON object");
    }
    return new Request(e.getAsJsonObject());
  }

  boolean has(String field) {
    return body.has(field) && !body.get(field).isJsonNull();
  }

  String string(String field) {
    if (!has(field)) {
      throw new BadRequest("missing field \"" + field + "\"");
    }
    return body.get(field).getAsString();
  }

  String string(String field, String dflt) {
    return has(field) ? body.get(field).getAsString() : dflt;
  }

  long number(String field, long dflt) {
    if (!has(field)) {
      return dflt;
    }
    try {
      return body.get(field).getAsLong();
    } catch (RuntimeException e) {
      throw new BadRequest("field \"" + field + "\" must be a number");
    }
  }

  boolean bool(String field, boolean dflt) {
    return has(field) ? body.get(field).getAsBoolean() : dflt;
  }

  /** A base64 byte string; absent means empty. */
  byte[] bytes(String field) {
    if (!has(field)) {
      return new byte[0];
    }
    try {
      return Base64.getDecoder().decode(body.get(field).getAsString());
    } catch (IllegalArgumentException e) {
      throw new BadRequest("field \"" + field + "\" is not base64: " + e.getMessage());
    }
  }

  JsonArray array(String field) {
    if (!has(field)) {
      return new JsonArray();
    }
    if (!body.get(field).isJsonArray()) {
      throw new BadRequest("field \"" + field + "\" must be an array");
    }
    return body.get(field).getAsJsonArray();
  }

  List<String> strings(String field) {
    List<String> out = new ArrayList<>();
    for (JsonElement e : array(field)) {
      out.add(e.getAsString());
    }
    return out;
  }

  List<byte[]> byteList(String field) {
    List<byte[]> out = new ArrayList<>();
    for (JsonElement e : array(field)) {
      try {
        out.add(Base64.getDecoder().decode(e.getAsString()));
      } catch (IllegalArgumentException ex) {
        throw new BadRequest("field \"" + field + "\" holds a value that is not base64");
      }
    }
    return out;
  }
}
