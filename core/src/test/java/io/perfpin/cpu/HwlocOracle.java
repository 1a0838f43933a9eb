package io.perfpin.cpu;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What hwloc itself reported for a dump: its {@code lstopo} console text or its XML, read into the objects
 * the topology tests compare (PUs, cores, packages, NUMA nodes, CPU kinds). Disallowed and offline PUs are
 * absent from both forms, so everything here is restricted to the CPUs the dump's process was allowed.
 */
final class HwlocOracle {
    /**
     * An object line: indent, type (such as {@code Group(Cluster)} or {@code OSDev[Network]}), attributes, I/O name.
     */
    private static final Pattern CONSOLE_OBJECT =
            Pattern.compile("^( *)(\\S+?)(?: L#\\d+)?(?: \\((.*)\\))?(?: \"[^\"]*\")?$");

    private static final Pattern OS_INDEX = Pattern.compile("(?:^| )P#(\\d+)");
    /** The summary under the tree, {@code depth 6:     16 PU (type #4)}: checks that the tree was read whole. */
    private static final Pattern DEPTH_COUNT = Pattern.compile("depth \\d+:\\s+(\\d+) (Package|Core|PU) \\(type");

    private static final Pattern CPU_KIND = Pattern.compile("^CPU kind #\\d+ efficiency (\\d+) cpuset (\\S+)");

    /** One hwloc object; memory objects (NUMA nodes) hang off their parent in {@link #memory}. */
    static final class HwlocObject {
        final String type;
        final int osIndex;
        final HwlocObject parent;
        final List<HwlocObject> children = new ArrayList<>();
        final List<HwlocObject> memory = new ArrayList<>();
        final Map<String, String> attributes = new HashMap<>();

        HwlocObject(String type, int osIndex, HwlocObject parent) {
            this.type = type;
            this.osIndex = osIndex;
            this.parent = parent;
            if (parent != null) {
                (type.equals("NUMANode") ? parent.memory : parent.children).add(this);
            }
        }

        CpuSet pus() {
            if (type.equals("PU")) {
                return CpuSet.of(osIndex);
            }
            return children.stream().map(HwlocObject::pus).reduce(CpuSet.EMPTY, CpuSet::union);
        }

        void collect(String wanted, List<HwlocObject> into) {
            if (type.equals(wanted)) {
                into.add(this);
            }
            memory.forEach(m -> m.collect(wanted, into));
            children.forEach(c -> c.collect(wanted, into));
        }
    }

    final String name;
    final HwlocObject machine;
    /** hwloc's CPU kinds: efficiency rank (0 for the smallest, most power-efficient cores) to their PUs. */
    final TreeMap<Integer, CpuSet> cpuKinds = new TreeMap<>();

    private HwlocOracle(String name, HwlocObject machine) {
        this.name = name;
        this.machine = machine;
    }

    /** Loads the oracle named by the {@code target:} line of {@code NAME.test}. */
    static HwlocOracle load(String fixture) throws Exception {
        Path dir = Fixtures.hwlocDir();
        String target = null;
        for (String line : Files.readAllLines(dir.resolve(fixture + ".test"))) {
            if (line.startsWith("target:")) {
                target = line.substring("target:".length()).strip();
            }
        }
        if (target == null) {
            throw new IllegalStateException(fixture + ".test names no target");
        }
        Path file = dir.resolve(target);
        return target.endsWith(".xml") ? fromXml(fixture, file) : fromConsole(fixture, file);
    }

    List<HwlocObject> all(String type) {
        List<HwlocObject> found = new ArrayList<>();
        machine.collect(type, found);
        return found;
    }

    CpuSet pus() {
        return machine.pus();
    }

    /** The PU sets of every object of a type that has PUs. */
    List<CpuSet> groups(String type) {
        List<CpuSet> groups = new ArrayList<>();
        for (HwlocObject object : all(type)) {
            if (!object.pus().isEmpty()) {
                groups.add(object.pus());
            }
        }
        return groups;
    }

    /** The NUMA node hwloc puts a PU in: the memory of its nearest ancestor that has any. */
    Optional<Integer> numaNode(int pu) {
        for (HwlocObject object : all("PU")) {
            if (object.osIndex == pu) {
                for (HwlocObject up = object.parent; up != null; up = up.parent) {
                    if (!up.memory.isEmpty()) {
                        if (up.memory.size() != 1) {
                            throw new IllegalStateException(name + ": PU " + pu + " sits under several NUMA nodes");
                        }
                        return Optional.of(up.memory.get(0).osIndex);
                    }
                }
                return Optional.empty();
            }
        }
        throw new IllegalArgumentException(name + ": no PU " + pu);
    }

    private static HwlocOracle fromConsole(String fixture, Path file) throws Exception {
        List<Integer> indents = new ArrayList<>();
        List<HwlocObject> stack = new ArrayList<>();
        HwlocOracle oracle = null;
        for (String line : Files.readAllLines(file)) {
            Matcher kind = CPU_KIND.matcher(line);
            if (kind.find()) {
                oracle.cpuKinds.put(Integer.parseInt(kind.group(1)), hwlocBitmap(kind.group(2)));
                continue;
            }
            Matcher count = DEPTH_COUNT.matcher(line);
            if (count.find() && oracle.all(count.group(2)).size() != Integer.parseInt(count.group(1))) {
                throw new IllegalStateException(
                        file + ": read " + oracle.all(count.group(2)).size() + " objects for '" + line.strip() + "'");
            }
            if (line.strip().startsWith("depth ")) {
                // the object tree is over; the summary below it names types, not objects
                indents.clear();
                stack.clear();
                continue;
            }
            Matcher object = CONSOLE_OBJECT.matcher(line);
            boolean inTree = oracle == null || !stack.isEmpty();
            if (inTree && !object.matches()) {
                throw new IllegalStateException(file + ": cannot read object line '" + line + "'");
            }
            if (!inTree) {
                continue;
            }
            int indent = object.group(1).length();
            while (!indents.isEmpty() && indents.get(indents.size() - 1) >= indent) {
                indents.remove(indents.size() - 1);
                stack.remove(stack.size() - 1);
            }
            String attributes = object.group(3) == null ? "" : object.group(3);
            Matcher os = OS_INDEX.matcher(attributes);
            HwlocObject parent = stack.isEmpty() ? null : stack.get(stack.size() - 1);
            HwlocObject created =
                    new HwlocObject(object.group(2), os.find() ? Integer.parseInt(os.group(1)) : -1, parent);
            if (parent == null) {
                oracle = new HwlocOracle(fixture, created);
            }
            indents.add(indent);
            stack.add(created);
        }
        return oracle;
    }

    private static HwlocOracle fromXml(String fixture, Path file) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        // The DOCTYPE names hwloc2.dtd, which is not here: do not fetch it.
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Element top = factory.newDocumentBuilder().parse(file.toFile()).getDocumentElement();
        HwlocOracle oracle = null;
        for (Node child = top.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element && ((Element) child).getTagName().equals("object")) {
                oracle = new HwlocOracle(fixture, xmlObject((Element) child, null));
            } else if (child instanceof Element
                    && ((Element) child).getTagName().equals("cpukind")) {
                Element kind = (Element) child;
                String efficiency = kind.getAttribute("efficiency");
                oracle.cpuKinds.put(
                        efficiency.isEmpty() ? 0 : Integer.parseInt(efficiency),
                        hwlocBitmap(kind.getAttribute("cpuset")));
            }
        }
        return oracle;
    }

    private static HwlocObject xmlObject(Element element, HwlocObject parent) {
        String osIndex = element.getAttribute("os_index");
        HwlocObject object = new HwlocObject(
                element.getAttribute("type"), osIndex.isEmpty() ? -1 : Integer.parseInt(osIndex), parent);
        for (int i = 0; i < element.getAttributes().getLength(); i++) {
            Node attribute = element.getAttributes().item(i);
            object.attributes.put(attribute.getNodeName(), attribute.getNodeValue());
        }
        for (Node child = element.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element && ((Element) child).getTagName().equals("object")) {
                xmlObject((Element) child, object);
            }
        }
        return object;
    }

    /** hwloc's bitmap text: {@code 0x0000ff00} or {@code 0xffffffff,0x0000000f}, 32-bit groups. */
    static CpuSet hwlocBitmap(String text) {
        return CpuSet.parseMask(text.replace("0x", ""));
    }
}
