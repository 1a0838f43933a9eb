import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Writes the picocli model of each command class that io.perfpin.cli.CommandModel.MODELLED lists, as CommandModel
 * describes it from the class's annotations, into a class beside it in the build's classes: COMMANDModel, a Supplier
 * of the text, which CommandModel reads at the command's start instead of the annotations (it says why). Run by the
 * build after the classes are compiled, with the test class path (ASM, not shipped).
 *
 * <p>Usage: java -cp CLASSPATH CommandModels.java CLASSES
 */
public final class CommandModels {
    /** The most a class file's string constant holds, in modified UTF-8. */
    private static final int MOST_CONSTANT_BYTES = 65_535;

    public static void main(String[] args) throws Exception {
        Path classes = Path.of(args[0]);
        Class<?> model = Class.forName("io.perfpin.cli.CommandModel");
        Method describe = model.getDeclaredMethod("describe", Object.class);
        describe.setAccessible(true);
        Field modelled = model.getDeclaredField("MODELLED");
        modelled.setAccessible(true);
        for (Object listed : (List<?>) modelled.get(null)) {
            Class<?> command = (Class<?>) listed;
            Constructor<?> constructor = command.getDeclaredConstructor();
            constructor.setAccessible(true);
            String text = (String) describe.invoke(null, constructor.newInstance());
            if (modifiedUtf8Bytes(text) > MOST_CONSTANT_BYTES) {
                throw new IllegalStateException(command + "'s model is longer than a class file's constant holds");
            }
            String name = command.getName().replace('.', '/') + "Model";
            // Written whole or not at all (a class file cut short would fail at the command's start): a new file of
            // this run's own (O_EXCL, 0600) beside it, then renamed over it.
            Path written = classes.resolve(name + ".class");
            Path partial = Files.createTempFile(written.getParent(), "model", ".partial");
            try {
                Files.write(partial, supplier(name, text));
                Files.move(partial, written, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(partial);
            }
        }
    }

    /** As a class file holds a string: NUL in two bytes, a char past U+07FF in three, each half of a pair so. */
    private static int modifiedUtf8Bytes(String text) {
        int bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            bytes += c != 0 && c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        return bytes;
    }

    /** A public final class {@code name} whose get() returns {@code text}. */
    private static byte[] supplier(String name, String text) {
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        writer.visit(
                Opcodes.V17,
                Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL | Opcodes.ACC_SUPER,
                name,
                "Ljava/lang/Object;Ljava/util/function/Supplier<Ljava/lang/String;>;",
                "java/lang/Object",
                new String[] {"java/util/function/Supplier"});
        MethodVisitor init = writer.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        MethodVisitor get = writer.visitMethod(Opcodes.ACC_PUBLIC, "get", "()Ljava/lang/Object;", null, null);
        get.visitCode();
        get.visitLdcInsn(text);
        get.visitInsn(Opcodes.ARETURN);
        get.visitMaxs(0, 0);
        get.visitEnd();
        writer.visitEnd();
        return writer.toByteArray();
    }
}
