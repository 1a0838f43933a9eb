package io.perfpin.nativeio;

/**
 * Whether an optional library (byte-buddy, the exports' OpenTelemetry and Prometheus client, JNA, jffi) can be
 * loaded, asked by one of its classes' names before any class that refers to it is used. In the agent each is a jar
 * copied out when first needed, which can fail; and a class whose reference to another failed keeps that error for
 * the JVM's life, also once the cause is mended and perfpin attached again, while a class asked for by name keeps
 * nothing: the next ask tries again. On a class path, as the CLI's, it only looks.
 */
public final class OptionalLibrary {
    private OptionalLibrary() {}

    /** Null when {@code className} can be loaded; otherwise why not, in words. */
    public static String unavailable(String className) {
        try {
            Class.forName(className, false, OptionalLibrary.class.getClassLoader());
            return null;
        } catch (ClassNotFoundException e) {
            String message = String.valueOf(e.getMessage());
            // the agent's loader says why after the name; a class path without the library says only the name
            return message.startsWith(className + ": ")
                    ? message.substring(className.length() + 2)
                    : "not on the class path (no class " + className + ")";
        } catch (LinkageError e) {
            return e.toString();
        }
    }
}
