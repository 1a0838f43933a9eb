package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class JavaProcessTest {

    @Test
    void theMainClassIsWhatTheLauncherRunsAfterItsOptions() {
        assertEquals(
                "com.acme.Main",
                main(
                        "/usr/bin/java",
                        "-Xmx1g",
                        "-cp",
                        "a.jar:b.jar",
                        "-Dx=y",
                        "com.acme.Main",
                        "-cp",
                        "not.an.option.of.java"));
        assertEquals(
                "com.acme.Main",
                main(
                        "java",
                        "--class-path",
                        "lib/*",
                        "--add-opens",
                        "java.base/java.lang=ALL-UNNAMED",
                        "--enable-native-access=ALL-UNNAMED",
                        "com.acme.Main"));
        assertEquals("/opt/app/app.jar", main("java", "-XX:+UseG1GC", "-jar", "/opt/app/app.jar", "--port", "80"));
        assertEquals("com.acme/com.acme.Main", main("java", "-p", "mods", "-m", "com.acme/com.acme.Main"));
        assertEquals("com.acme/com.acme.Main", main("java", "--module=com.acme/com.acme.Main"));
        assertEquals("com.acme.Main", main("java", "@jvm.args", "com.acme.Main"));
        assertEquals("(jshell)", main("/usr/lib/jvm/jdk/bin/jshell"));
        assertEquals("(java)", main("java", "-jar"));
    }

    @Test
    void thisJvmIsListedWithItsMainClass() throws Exception {
        long self = ProcessHandle.current().pid();
        JavaProcess me = JavaProcess.ofCurrentUser().stream()
                .filter(p -> p.pid() == self)
                .findFirst()
                .orElseThrow();
        assertTrue(me.commandLine().get(0).endsWith("java"), me.commandLine().toString());
        assertEquals(me.mainClass(), JavaProcess.of(self).mainClass());
        assertTrue(JavaProcess.isRunning(self));
    }

    private static String main(String... commandLine) {
        return JavaProcess.mainClassOf(List.of(commandLine));
    }
}
