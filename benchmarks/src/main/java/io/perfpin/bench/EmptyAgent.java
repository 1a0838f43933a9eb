package io.perfpin.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * A Java agent whose premain returns at once: what {@code -javaagent} costs a JVM before any agent does anything
 * (the JDK loads java.instrument, and with it gives up the module graph its class-data archive holds ready), the
 * floor of every agent written in Java, perfpin's included.
 */
final class EmptyAgent {
    private EmptyAgent() {}

    /**
     * The agent: a class of its own, alone in its jar. The JDK finds premain among the class's declared methods, which
     * resolves the types of all of them: this class's {@link #jar} would name {@link Workspace}, which the jar lacks,
     * and the JVM would abort before main().
     */
    public static final class Premain {
        private Premain() {}

        public static void premain(String options, Instrumentation instrumentation) {
            // nothing: the cost measured is the JDK's
        }
    }

    /**
     * The agent's jar, made new (never over a file already there) in the private scratch directory: this class alone,
     * and a manifest that names it.
     */
    static Path jar(Workspace workspace) throws IOException {
        Path jar = workspace.scratch("empty-agent.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Premain-Class"), Premain.class.getName());
        String entry = Premain.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar, StandardOpenOption.CREATE_NEW);
                JarOutputStream out = new JarOutputStream(file, manifest);
                InputStream bytes = EmptyAgent.class.getResourceAsStream("/" + entry)) {
            if (bytes == null) {
                throw new IOException("cannot read " + entry + " from the benchmarks' own jar");
            }
            out.putNextEntry(new JarEntry(entry));
            bytes.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
