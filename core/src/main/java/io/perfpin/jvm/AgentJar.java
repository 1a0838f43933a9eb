package io.perfpin.jvm;

import io.perfpin.PerfpinDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * Where the agent jar that {@code run}, {@code attach} and the JMH profiler load comes from:
 * {@code -Dperfpin.agent.jar} when set, otherwise the copy packaged inside the jar this class runs from (the CLI's
 * {@code perfpin.jar}, {@code perfpin-jmh.jar}), installed under a directory named by its content
 * ({@link PerfpinDirectory#installedJar}).
 *
 * <p>A JVM this user starts, or attaches to in this mount namespace under this root, gets it from this user's private
 * perfpin directory. Any other JVM (another user's, one in a container, one under chroot) gets a copy of it in its own
 * {@code /tmp}, made as its own user when perfpin attaches ({@link AgentLoader}).
 */
public final class AgentJar {
    public static final String PROPERTY = "perfpin.agent.jar";
    private static final String RESOURCE = "perfpin-agent.jar";
    /** The agent's native way in, which starts the jar beside it (docs/agent-options.md, started by -agentpath). */
    public static final String LIBRARY = "libperfpin-agent.so";

    private AgentJar() {}

    /** The agent jar for a JVM of this user's. */
    public static Path forThisUser() throws IOException {
        Path configured = configured();
        return configured != null ? configured : PerfpinDirectory.installedJar(RESOURCE, packaged(RESOURCE));
    }

    /**
     * The JVM option that starts the agent with {@code options} in a JVM this user launches with {@code jvmWords} (the
     * words after {@code java}): by its native library where there is one beside the jar (the build's, or the one
     * packaged with it, installed with a copy of the jar), this machine can load it, and the words do not need
     * {@code -javaagent} ({@link #needsJavaagent}), since a JVM started without it starts sooner; by {@code -javaagent}
     * otherwise ({@link #javaagentOption}). A library the launched JVM could not load would stop it before
     * {@code main()}: a mount that forbids executing, a build for another processor or C library.
     */
    public static String startOption(String options, List<String> jvmWords) throws IOException {
        if (needsJavaagent(jvmWords)) {
            return javaagentOption(options);
        }
        Path library;
        Path jar = configured();
        if (jar != null) {
            // the library starts the perfpin-agent.jar beside it: a jar named otherwise is started by -javaagent
            library = jar.getFileName().toString().equals(RESOURCE) ? jar.resolveSibling(LIBRARY) : null;
        } else {
            byte[] packagedLibrary = packagedOrNull(LIBRARY);
            library = packagedLibrary == null ? null : installedPair(packagedLibrary);
        }
        return library != null && loadable(library)
                ? "-agentpath:" + library + suffix(options)
                : javaagentOption(options);
    }

    /**
     * Whether a JVM launched with {@code jvmWords} may leave {@code java.instrument} out of its modules ({@code -m},
     * {@code --module}, {@code --limit-modules}, or {@code -Djdk.module.main=}, which the launcher turns {@code -m}
     * into and JMH copies to its forks) or give it a system class loader of the application's own: there the agent's
     * {@code -agentpath} way in cannot start it, and {@code -javaagent}, which adds the module, can. Any word counts,
     * the application's arguments too: a wrong guess only costs the faster start.
     */
    public static boolean needsJavaagent(List<String> jvmWords) {
        for (String word : jvmWords) {
            if (word.equals("-m")
                    || word.equals("--module")
                    || word.startsWith("--module=")
                    || word.equals("--limit-modules")
                    || word.startsWith("--limit-modules=")
                    || word.startsWith("-Djdk.module.main=")
                    || word.startsWith("-Djava.system.class.loader=")) {
                return true;
            }
        }
        return false;
    }

    /** {@code -javaagent:} the agent jar, with {@code options}: for a JVM that -agentpath cannot serve. */
    public static String javaagentOption(String options) throws IOException {
        return "-javaagent:" + forThisUser() + suffix(options);
    }

    private static String suffix(String options) {
        return options.isEmpty() ? "" : "=" + options;
    }

    /** The packaged library and a copy of the jar beside it; null where they cannot be installed. */
    private static Path installedPair(byte[] packagedLibrary) {
        try {
            return PerfpinDirectory.installedPair(RESOURCE, packaged(RESOURCE), LIBRARY, packagedLibrary);
        } catch (IOException e) {
            return null; // -javaagent installs the jar alone, and says what is wrong with it, if anything is
        }
    }

    /**
     * Whether this machine loads {@code library}, tried here: it defines no JNI_OnLoad and no constructor, so loading
     * it into this JVM runs none of its code.
     */
    private static boolean loadable(Path library) {
        if (!Files.isRegularFile(library)) {
            return false;
        }
        try {
            System.load(library.toString());
            return true;
        } catch (UnsatisfiedLinkError | SecurityException e) {
            return false;
        }
    }

    /** The jar {@code -Dperfpin.agent.jar} names; null when it is not set. */
    private static Path configured() throws IOException {
        String configured = System.getProperty(PROPERTY);
        if (configured == null || configured.isEmpty()) {
            return null;
        }
        Path jar = Paths.get(configured).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IOException("-D" + PROPERTY + "=" + configured + ": no such file");
        }
        return jar;
    }

    private static byte[] packaged(String resource) throws IOException {
        byte[] content = packagedOrNull(resource);
        if (content == null) {
            throw new IOException("this jar carries no perfpin agent; rebuild perfpin with ./mvnw -B package,"
                    + " or set -D" + PROPERTY + "=<path to perfpin-agent.jar>");
        }
        return content;
    }

    private static byte[] packagedOrNull(String resource) throws IOException {
        try (InputStream in = AgentJar.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? null : in.readAllBytes();
        }
    }
}
