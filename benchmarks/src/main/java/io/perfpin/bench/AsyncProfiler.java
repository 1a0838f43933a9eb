package io.perfpin.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The peer that opens a perf event for every thread as it starts, as perfpin's agent does: async-profiler with
 * {@code event=cpu}, a benchmark-only dependency ({@code tools.profiler:async-profiler} from Maven Central, whose jar
 * holds the native library). Its library is taken from this jar into the scratch directory; where that is not
 * possible, {@link #missing()} says why and the benchmarks say it instead of a figure.
 */
final class AsyncProfiler {
    private static final String PROPERTIES = "/META-INF/maven/tools.profiler/async-profiler/pom.properties";

    private final Path library;
    private final String version;
    private final String missing;

    private AsyncProfiler(Path library, String version, String missing) {
        this.library = library;
        this.version = version;
        this.missing = missing;
    }

    static AsyncProfiler extract(Path scratch) {
        String platform = platform();
        if (platform == null) {
            return new AsyncProfiler(
                    null,
                    "",
                    "no async-profiler library for " + System.getProperty("os.name") + " "
                            + System.getProperty("os.arch"));
        }
        try (InputStream in = AsyncProfiler.class.getResourceAsStream("/" + platform + "/libasyncProfiler.so");
                InputStream properties = AsyncProfiler.class.getResourceAsStream(PROPERTIES)) {
            if (in == null) {
                return new AsyncProfiler(
                        null,
                        "",
                        "benchmarks.jar holds no " + platform
                                + "/libasyncProfiler.so: rebuild it (./mvnw -B -q -DskipTests package)");
            }
            Path library = scratch.resolve("libasyncProfiler.so");
            Files.copy(in, library);
            Properties pom = new Properties();
            if (properties != null) {
                pom.load(properties);
            }
            return new AsyncProfiler(library, pom.getProperty("version", "?"), null);
        } catch (IOException e) {
            return new AsyncProfiler(null, "", "cannot extract async-profiler's library: " + e.getMessage());
        }
    }

    private static String platform() {
        if (!System.getProperty("os.name").equals("Linux")) {
            return null;
        }
        return switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> "linux-x64";
            case "aarch64" -> "linux-arm64";
            default -> null;
        };
    }

    /** Why it cannot run here; null when it can. */
    String missing() {
        return missing;
    }

    /** {@code async-profiler 4.6}, as the report names it. */
    String name() {
        return "async-profiler " + version;
    }

    /**
     * The JVM option that profiles CPU from the JVM's start, as its users start it, writing collapsed stacks to
     * {@code output} at exit.
     */
    String agentOption(Path output) {
        return "-agentpath:" + library + "=start,event=cpu,file=" + output;
    }

    /** The options text of {@link #agentOption}, for the report. */
    static String optionsText() {
        return "start,event=cpu,file=…collapsed";
    }
}
