package io.perfpin.options;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.nio.channels.ServerSocketChannel;
import java.util.regex.Pattern;

/**
 * Where a listener of perfpin's binds, as {@code prometheus=} and {@code --prometheus} spell it: {@code [HOST:]PORT}.
 * The host is the loopback address unless the user writes another: {@code 0.0.0.0} (every IPv4 address) only when
 * written. The text is checked here; a host name is looked up only when the listener binds ({@link #bind}), off the
 * application's threads.
 *
 * <p>A listener listens on its address's own family: {@code 0.0.0.0} on every IPv4 address and no IPv6 one,
 * {@code [::]} on every IPv6 address and every IPv4 one (IPv4-mapped), {@code [::1]} on IPv6's loopback only.
 */
public final class ListenAddress {
    public static final String ALLOWED = "[HOST:]PORT: PORT from 1 to 65535, HOST an IP address ([::1] for IPv6) or a"
            + " host name, 127.0.0.1 when left out";
    public static final String LOOPBACK = "127.0.0.1";
    private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");
    private static final Pattern IPV4_LIKE = Pattern.compile("[0-9.]+");
    private static final Pattern IPV4 = Pattern.compile(
            "((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");
    private static final String LABEL = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
    private static final Pattern HOST_NAME = Pattern.compile("(?=.{1,253}$)" + LABEL + "(\\." + LABEL + ")*");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

    private final String host;
    private final int port;

    private ListenAddress(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /**
     * @param bad how a message about it begins, naming what the user wrote: {@code bad option 'KEY=VALUE'} for the
     *            agent's option, {@code bad address 'VALUE'} for a command line's
     * @throws IllegalArgumentException one line naming what the user wrote and what is allowed
     */
    public static ListenAddress parse(String value, String bad) {
        OptionLimits.checkLength("address", value, value);
        int colon = value.lastIndexOf(':');
        String host = colon < 0 ? LOOPBACK : value.substring(0, colon);
        String port = value.substring(colon + 1);
        if (!PORT.matcher(port).matches() || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            throw new IllegalArgumentException(
                    bad + ": the port must be a number from 1 to 65535; expected " + ALLOWED);
        }
        if (!validHost(host)) {
            throw new IllegalArgumentException(
                    bad + ": '" + host + "' is neither an IP address nor a host name;" + " expected " + ALLOWED);
        }
        return new ListenAddress(host, Integer.parseInt(port));
    }

    private static boolean validHost(String host) {
        if (host.startsWith("[") && host.endsWith("]")) {
            String literal = host.substring(1, host.length() - 1);
            if (!IPV6.matcher(literal).matches() || !literal.contains(":")) {
                return false;
            }
            try {
                InetAddress.getByName(literal); // a literal: parsed, never looked up
                return true;
            } catch (UnknownHostException e) {
                return false;
            }
        }
        return IPV4_LIKE.matcher(host).matches()
                ? IPV4.matcher(host).matches()
                : HOST_NAME.matcher(host).matches();
    }

    /**
     * A listener bound here, the host looked up now. Its socket is of the address's family: Java's
     * {@code ServerSocket} is an IPv6 socket wherever IPv6 is on, and binds {@code 0.0.0.0} as {@code ::}, which
     * listens on every IPv6 address as well; an IPv4 socket keeps {@code 0.0.0.0} to IPv4. An IPv6 socket is Java's
     * dual-stack one (IPV6_V6ONLY off), so {@code [::]} takes IPv4 connections too.
     *
     * @throws IOException the lookup's or the bind's failure (an address in use, one not of this machine)
     */
    public ServerSocket bind(int backlog) throws IOException {
        InetSocketAddress at = new InetSocketAddress(InetAddress.getByName(hostName()), port);
        ServerSocket listener = ServerSocketChannel.open(
                        at.getAddress() instanceof Inet4Address
                                ? StandardProtocolFamily.INET
                                : StandardProtocolFamily.INET6)
                .socket();
        try {
            listener.setReuseAddress(true);
            listener.bind(at, backlog);
            return listener;
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
    }

    /** The host as written ({@code [::1]} with its brackets), or {@link #LOOPBACK}. */
    public String host() {
        return host;
    }

    /** The host as a resolver takes it: an IPv6 literal without its brackets. */
    public String hostName() {
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }

    public int port() {
        return port;
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
