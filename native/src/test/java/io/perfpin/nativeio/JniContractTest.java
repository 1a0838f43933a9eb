package io.perfpin.nativeio;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JniContractTest extends SyscallsContract {
    @Override
    Backend backend() {
        return Backend.JNI;
    }

    @Test
    void definesAClassInTheBootstrapLoaderOnce() throws Exception {
        Syscalls jni;
        try {
            jni = Backends.load(Backend.JNI);
        } catch (BackendUnavailableException e) {
            Assumptions.abort(e.getMessage());
            return;
        }
        String name = BootProbe.class.getName();
        byte[] classFile = classFile(BootProbe.class);
        assertFalse(BootClasses.has(name), "not on the bootstrap path");
        assertEquals(-Errno.EINVAL, BootClasses.define(jni, "io.perfpin.nativeio.NotBootProbe", classFile),
                "a class file under another name is refused");
        assertEquals(-Errno.EINVAL, BootClasses.define(jni, name, new byte[] {1, 2, 3}), "no class file");

        assertEquals(0, BootClasses.define(jni, name, classFile));
        assertTrue(BootClasses.has(name));
        Class<?> defined = Class.forName(name, false, null);
        assertNull(defined.getClassLoader(), "the bootstrap class loader's");
        assertNotSame(BootProbe.class, defined, "the class path's copy is another class");
        assertEquals(-Errno.EINVAL, BootClasses.define(jni, name, classFile), "defined once");
        assertEquals(-Errno.ENOSYS, BootClasses.define(Backends.load(Backend.JNA), name, classFile),
                "only the C library defines classes");
    }

    private static byte[] classFile(Class<?> type) throws IOException {
        String name = type.getName();
        try (InputStream in = type.getResourceAsStream(name.substring(name.lastIndexOf('.') + 1) + ".class")) {
            return in.readAllBytes();
        }
    }

    /** Defined in the bootstrap loader by the test: nothing else there may know it. */
    static final class BootProbe {
    }
}
