package io.perfpin.files;

import java.io.IOException;

/** A path perfpin refuses to use because someone other than root and this user could change what it names. */
public final class UntrustedPathException extends IOException {
    private static final long serialVersionUID = 1L;

    public UntrustedPathException(String message) {
        super(message);
    }
}
