package io.perfpin.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The agent's entry points: {@code -javaagent:perfpin-agent.jar=OPTIONS} (premain), dynamic attach (agentmain), and
 * {@code -agentpath:libperfpin-agent.so=OPTIONS}, whose C code hands the options to {@link #launching} and then has the
 * JDK call agentmain as the JVM starts. All take one path, and none lets anything escape to the application.
 *
 * <p>That path loads the agent's implementation in a class loader of its own ({@link ImplementationClassLoader}), as the
 * OpenTelemetry agent does: the implementation and its dependencies (byte-buddy, JNA, jffi) sit under
 * {@code perfpin-impl/} in the agent jar, where no application class loader looks, so an application that ships other
 * versions of them is unaffected. The implementation puts the bootstrap hooks where {@code java.lang.Thread} sees them
 * itself, before anything names them ({@code HookClasses}). This class and that loader are all the application class
 * loader reads, each class of it a part of a millisecond of premain.
 */
public final class PerfpinAgent {
    private static final String IMPLEMENTATION = "io.perfpin.agent.impl.AgentMain";

    /** Held while the implementation starts or detaches: one request at a time. */
    private static final Object LAUNCH = new Object();

    /** One per JVM: an agent attached again after a detach reuses it, and with it its loaded JNI library. */
    private static ClassLoader implementation;

    /**
     * The options libperfpin-agent.so gave, for the agentmain it has the JDK call next, on the same thread; null
     * otherwise, so that an attach meanwhile, or after a start that failed, is an attach.
     */
    private static String launched;

    private static Thread launcherThread;

    private PerfpinAgent() {}

    public static void premain(String options, Instrumentation instrumentation) {
        launch(options, instrumentation, false);
    }

    public static void agentmain(String options, Instrumentation instrumentation) {
        String atStart = null;
        synchronized (PerfpinAgent.class) {
            if (launcherThread == Thread.currentThread()) {
                atStart = launched;
                launched = null;
                launcherThread = null;
            }
        }
        if (atStart != null) {
            // the JVM's start, on the thread that runs main() next, as premain: the JDK passed no options
            launch(atStart, instrumentation, false);
        } else {
            launch(options, instrumentation, true);
        }
    }

    private static void launch(String options, Instrumentation instrumentation, boolean attached) {
        synchronized (LAUNCH) {
            try {
                if (implementation == null) {
                    URL location = PerfpinAgent.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation();
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

    /**
     * Called by libperfpin-agent.so at the JVM's start (JVMTI VMInit) just before it has agentmain called on this
     * thread, and with null just after, to take back what a start that failed did not take.
     */
    @SuppressWarnings("unused")
    private static synchronized void launching(String options) {
        launched = options;
        launcherThread = options == null ? null : Thread.currentThread();
    }
}
