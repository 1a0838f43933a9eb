package io.perfpin.nativeio.libpfm;

/**
 * libpfm4 could not encode what it was asked: an event string it does not know or whose unit masks and
 * modifiers it rejects, a PMU model it does not know, or libpfm4 itself is missing. The message is one
 * line naming the token.
 */
public final class LibpfmException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** {@code PFM_ERR_NOTFOUND} of pfmlib.h: no active PMU has an event of that name. */
    static final int PFM_ERR_NOTFOUND = -4;

    private final String token;
    private final int errorCode;

    public LibpfmException(String token, int errorCode, String message) {
        super(message);
        this.token = token;
        this.errorCode = errorCode;
    }

    /** The event string or PMU model that was rejected. */
    public String token() {
        return token;
    }

    /** libpfm's {@code PFM_ERR_*} code (negative), or 0 when the failure is not one of libpfm's answers. */
    public int errorCode() {
        return errorCode;
    }

    /**
     * Whether the event name itself is unknown (as opposed to a known event with a bad unit mask or
     * modifier): the case where nearest names help.
     */
    public boolean eventNotFound() {
        return errorCode == PFM_ERR_NOTFOUND;
    }
}
