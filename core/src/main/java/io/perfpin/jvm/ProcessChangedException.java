package io.perfpin.jvm;

import java.io.IOException;

/** A pid no longer names the process perfpin checked ({@link ProcessIdentity#check}); the message says how. */
public final class ProcessChangedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final boolean exited;

    public ProcessChangedException(boolean exited, String message) {
        super(message);
        this.exited = exited;
    }

    /** Whether the process is gone and no other has its pid: nothing is left to act on, rightly or wrongly. */
    public boolean exited() {
        return exited;
    }
}
