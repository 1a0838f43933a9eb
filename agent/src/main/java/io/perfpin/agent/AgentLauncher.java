package io.perfpin.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.jar.JarFile;

/**
 * Loads the agent's implementation in a class loader of its own ({@link ImplementationClassLoader}), as the
 * OpenTelemetry agent does: the implementation and its dependencies (byte-buddy, JNA, jffi) sit under
 * {@code perfpin-impl/} in the agent jar, where no application class loader looks, so an application that
 * ships other versions of them is unaffected. The bootstrap hooks ({@code io.perfpin.agent.bootstrap}) must be on the bootstrap class path,
 * since the code woven into {@code java.lang.Thread} can only see classes there. The manifest's
 * {@code Boot-Class-Path} puts the jar there as the JVM starts, when it costs nothing; a jar renamed, or
 * loaded by dynamic attach, is appended at run time instead, which makes HotSpot drop class-data sharing for
 * application classes and say so on stderr.
 *
 * <p>This class must not name the bootstrap hooks: loaded through the application class loader before the
 * jar joins the bootstrap path, they would exist twice.
 */
final class AgentLauncher {
    private static final String IMPLEMENTATION = "io.perfpin.agent.impl.AgentMain";
    private static final String HOOKS = "io.perfpin.agent.bootstrap.ThreadHooks";
    /** One per JVM: an agent attached again after a detach reuses it, and with it its loaded JNI library. */
    private static ClassLoader implementation;

    private AgentLauncher() {
    }

    static synchronized void launch(String options, Instrumentation instrumentation, boolean attached) {
        try {
            if (implementation == null) {
                Path jar = ownJar();
                if (!hooksOnBootstrapPath()) {
                    instrumentation.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
                }
                implementation = new ImplementationClassLoader(jar);
            }
            Class.forName(IMPLEMENTATION, true, implementation)
                    .getMethod("start", String.class, Instrumentation.class, boolean.class)
                    .invoke(null, options, instrumentation, attached);
        } catch (InvocationTargetException e) {
            notStarted(e.getCause());
        } catch (Throwable e) {
            notStarted(e);
        }
    }

    private static boolean hooksOnBootstrapPath() {
        try {
            Class.forName(HOOKS, false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** From this class's own URL: loaded from the bootstrap path, it has no code source. */
    private static Path ownJar() throws Exception {
        String url = PerfpinAgent.class.getResource("PerfpinAgent.class").toString();
        if (!url.startsWith("jar:") || !url.contains("!/")) {
            throw new IllegalStateException("the agent must run from its jar, not from " + url);
        }
        return Paths.get(new URI(url.substring("jar:".length(), url.indexOf("!/"))));
    }

    private static void notStarted(Throwable e) {
        System.err.println("[perfpin] the agent did not start, the application runs without it: " + e);
    }
}
