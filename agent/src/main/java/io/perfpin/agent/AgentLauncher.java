package io.perfpin.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Loads the agent's implementation in a class loader of its own ({@link ImplementationClassLoader}), as the
 * OpenTelemetry agent does: the implementation and its dependencies (byte-buddy, JNA, jffi) sit under
 * {@code perfpin-impl/} in the agent jar, where no application class loader looks, so an application that
 * ships other versions of them is unaffected. The implementation puts the bootstrap hooks where
 * {@code java.lang.Thread} sees them itself, before anything names them ({@code HookClasses}).
 */
final class AgentLauncher {
    private static final String IMPLEMENTATION = "io.perfpin.agent.impl.AgentMain";
    /** One per JVM: an agent attached again after a detach reuses it, and with it its loaded JNI library. */
    private static ClassLoader implementation;

    private AgentLauncher() {}

    static synchronized void launch(String options, Instrumentation instrumentation, boolean attached) {
        try {
            if (implementation == null) {
                URL location =
                        PerfpinAgent.class.getProtectionDomain().getCodeSource().getLocation();
                implementation = new ImplementationClassLoader(ownJar(location), location);
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

    /**
     * The jar the JVM loaded this class from, at {@code location}, as its class loader recorded it: asking the loader for
     * the class file's URL instead searched the application's class path first, 9 ms of its start-up.
     */
    private static Path ownJar(URL location) throws Exception {
        Path jar = Paths.get(location.toURI());
        if (!jar.toFile().isFile()) {
            throw new IllegalStateException("the agent must run from its jar, not from " + location);
        }
        return jar;
    }

    private static void notStarted(Throwable e) {
        System.err.println("[perfpin] the agent did not start, the application runs without it: " + e);
    }
}
