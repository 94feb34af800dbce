package rangecopy.testenv;

/** A control request that names something wrong or missing; answered with status 400. */
final class BadRequest extends RuntimeException {
  private static final long serialVersionUID = 1L;

  BadRequest(String message) {
    super(message);
  }
}
