package io.perfpin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.Programs;
import io.perfpin.testkit.TestJvm;
import java.io.File;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PerfpinDirectoryTest {
    /** Prints the perfpin directory as this process resolves it. */
    public static final class PrintBase {
        private PrintBase() {}

        public static void main(String[] args) {
            System.out.println("base " + PerfpinDirectory.base());
        }
    }

    /**
     * Whatever another user made at {@code /tmp/perfpin-<user>} first, a link, a file or a FIFO as well as a
     * directory, is theirs: perfpin goes to {@code ~/.cache/perfpin} rather than stop. Something of the user's own
     * there stays the place, refused where it is opened, for the user to look at. Each in a /tmp of its own (a mount
     * namespace with a tmpfs there), as root.
     */
    @Test
    void whatAnotherUserMadeAtTheSharedNameIsLeftToThem() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root can mount a /tmp of its own");
        assumeTrue(Programs.onPath("unshare").isPresent(), "needs unshare");
        String home = System.getProperty("user.home");
        for (String plant : new String[] {"ln -s /nonexistent", "mkfifo", "touch"}) {
            assertEquals(Path.of(home, ".cache", "perfpin").toString(), base(plant, "65534:65534"), plant);
        }
        assertEquals("/tmp/perfpin-root", base("ln -s /nonexistent", "0:0"), "the user's own link");
    }

    /**
     * The base of a JVM whose /tmp holds only what {@code plant} made at perfpin's name, owned by {@code owner}, and
     * the directories of /tmp its class path lies in (a fresh clone's, in CI), bound from the host's /tmp, which is
     * kept on /mnt for it.
     */
    private static String base(String plant, String owner) throws Exception {
        String shared = "/tmp/perfpin-root";
        Set<String> kept = new TreeSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry).toAbsolutePath().normalize();
            if (path.startsWith("/tmp") && path.getNameCount() > 1) {
                kept.add(path.getName(1).toString());
            }
        }
        StringBuilder script = new StringBuilder("mount --bind /tmp /mnt && mount -t tmpfs tmpfs /tmp");
        for (String dir : kept) {
            script.append(" && mkdir /tmp/" + dir + " && mount --bind /mnt/" + dir + " /tmp/" + dir);
        }
        script.append(" && " + plant + " " + shared + " && chown -h " + owner + " " + shared
                + " && unset XDG_RUNTIME_DIR && exec \"$@\"");
        try (TestJvm child = TestJvm.main(PrintBase.class)
                .launcher("unshare", "-m", "sh", "-c", script.toString(), "sh")
                .start()) {
            String base = child.await(Pattern.compile("base (.*)")).group(1);
            assertEquals(0, child.awaitExit(), child.describe("its exit"));
            return base;
        }
    }
}
