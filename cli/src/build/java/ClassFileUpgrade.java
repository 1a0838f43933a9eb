import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * Rewrites the class files of a jar that are older than Java 6 (picocli's, built for Java 5) as Java 8 class files,
 * with the stack map frames that format carries, computed by ASM. The JVM checks an old class file with its old
 * verifier, which infers the types by itself: at every start of the CLI, since the class-data sharing archive can keep
 * an old class but not its verification (JDK 17). With frames, the archive's dump verifies them once: 13 ms of the
 * main thread's 68 before a `perfpin stat` began counting. The instructions, names and attributes stay as they
 * were. Run by the build, as a source file: {@code java -cp ASM ClassFileUpgrade.java JAR}.
 */
public final class ClassFileUpgrade {
    /** Java 6's major version: from it on, a class file may carry frames and be verified by type checking. */
    private static final int JAVA_6 = 50;

    private ClassFileUpgrade() {}

    public static void main(String[] args) throws IOException {
        Path jar = Path.of(args[0]);
        Path upgraded = Files.createTempFile(jar.toAbsolutePath().getParent(), "upgrade", ".jar");
        int rewritten = 0;
        try {
            try (ZipFile in = new ZipFile(jar.toFile());
                    URLClassLoader classes =
                            new URLClassLoader(new URL[] {jar.toUri().toURL()}, null);
                    OutputStream file = Files.newOutputStream(upgraded);
                    ZipOutputStream out = new ZipOutputStream(file)) {
                for (Enumeration<? extends ZipEntry> entries = in.entries(); entries.hasMoreElements(); ) {
                    ZipEntry entry = entries.nextElement();
                    byte[] bytes;
                    try (InputStream read = in.getInputStream(entry)) {
                        bytes = read.readAllBytes();
                    }
                    if (entry.getName().endsWith(".class") && major(bytes) < JAVA_6) {
                        bytes = upgraded(bytes, classes);
                        rewritten++;
                    }
                    ZipEntry copy = new ZipEntry(entry.getName());
                    copy.setTime(entry.getTime());
                    out.putNextEntry(copy);
                    out.write(bytes);
                    out.closeEntry();
                }
            }
            Files.setPosixFilePermissions(upgraded, Files.getPosixFilePermissions(jar));
            Files.move(upgraded, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            // after the move there is nothing left to delete; before it, the jar is as the shade plugin made it
            Files.deleteIfExists(upgraded);
        }
        System.out.println("[perfpin] " + rewritten + " class files older than Java 6 rewritten as Java 8's in " + jar);
    }

    private static int major(byte[] classFile) {
        return (classFile[6] & 0xFF) << 8 | classFile[7] & 0xFF;
    }

    /**
     * The class as Java 8's format, its frames computed. ASM finds the common superclass of two types, which a frame
     * needs where paths join, by loading them (not initialising them) from the jar itself.
     */
    private static byte[] upgraded(byte[] classFile, ClassLoader classes) {
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected ClassLoader getClassLoader() {
                return classes;
            }
        };
        new ClassReader(classFile)
                .accept(
                        new ClassVisitor(Opcodes.ASM9, writer) {
                            @Override
                            public void visit(
                                    int version,
                                    int access,
                                    String name,
                                    String signature,
                                    String superName,
                                    String[] interfaces) {
                                super.visit(Opcodes.V1_8, access, name, signature, superName, interfaces);
                            }
                        },
                        ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }
}
