package io.perfpin.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Run in a user namespace as another user by {@link UserNamespaceTrustTest}: each argument pair is an action and a
 * path; each prints one line, {@code done} or {@code refused <reason>: <message>}.
 */
public final class ForeignOwnerProbe {
    private ForeignOwnerProbe() {}

    public static void main(String[] args) {
        for (int i = 0; i + 1 < args.length; i += 2) {
            Path path = Path.of(args[i + 1]);
            try {
                if (args[i].equals("output")) {
                    try (FileChannel ignored = OutputFile.create(path)) {
                        // the file itself is the outcome
                    }
                } else if (args[i].equals("open")) {
                    OwnedDirectory.open(path);
                } else if (args[i].equals("directories")) {
                    System.out.println("directories " + PackagedCopy.directories());
                } else {
                    PackagedCopy.in(path, "probe", "probe's bytes".getBytes(StandardCharsets.UTF_8), ".bin");
                }
                System.out.println("done");
            } catch (UntrustedPathException e) {
                System.out.println("refused " + e.reason() + ": " + e.getMessage());
            } catch (IOException | RuntimeException e) {
                System.out.println("failed " + e);
            }
        }
    }
}
