package io.perfpin.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * A Java agent that holds perfpin's agent back as it starts beside {@code main()}, as a busy host or another agent's
 * slow transformer would: the first class of perfpin's that the thread {@code perfpin-start} loads waits MILLIS ms.
 * Given before perfpin's own {@code -javaagent} ({@link #option}), so that its transformer is in place first.
 */
public final class SlowAgentStart {
    private static final String START_THREAD = "perfpin-start";

    private SlowAgentStart() {}

    /** {@code -javaagent:JAR=MILLIS}, its jar written into {@code dir}. */
    public static String option(Path dir, long millis) throws IOException {
        return "-javaagent:" + jar(dir).toAbsolutePath() + "=" + millis;
    }

    public static void premain(String millis, Instrumentation instrumentation) {
        long wait = Long.parseLong(millis);
        AtomicBoolean waited = new AtomicBoolean();
        instrumentation.addTransformer(new ClassFileTransformer() {
            @Override
            public byte[] transform(
                    ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes) {
                if (name != null
                        && name.startsWith("io/perfpin/")
                        && Thread.currentThread().getName().equals(START_THREAD)
                        && waited.compareAndSet(false, true)) {
                    try {
                        Thread.sleep(wait);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return null;
            }
        });
    }

    /** The agent's jar: this class and its transformer, under a manifest that names it. */
    private static Path jar(Path dir) throws IOException {
        Path jar = dir.resolve("slow-agent-start.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Premain-Class"), SlowAgentStart.class.getName());
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest)) {
            for (String name : new String[] {SlowAgentStart.class.getName(), SlowAgentStart.class.getName() + "$1"}) {
                String entry = name.replace('.', '/') + ".class";
                out.putNextEntry(new JarEntry(entry));
                try (InputStream in = SlowAgentStart.class.getClassLoader().getResourceAsStream(entry)) {
                    in.transferTo(out);
                }
                out.closeEntry();
            }
        }
        return jar;
    }
}
