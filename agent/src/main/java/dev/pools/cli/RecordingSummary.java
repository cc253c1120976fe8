package dev.pools.cli;

import dev.pools.memory.PoolAllocator;
import dev.pools.recording.ChunkChecksum;
import dev.pools.recording.EventNames;
import dev.pools.recording.Recorder;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import jdk.jfr.EventType;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * What one recording says, read in one streaming pass: the layout, each pool's final report, the
 * final usage and its peaks, refusals, call sites and request sizes, and (when asked for) the
 * timeline for charts. Memory grows with the number of pools and call sites, not with the length
 * of the recording, unless the timeline is kept.
 *
 * <p>"Final" is by event time, not file order: JFR writes each thread's events from its own buffer.
 * When the layout was replaced during the run, only reports taken after the last install count.
 */
final class RecordingSummary {

    /**
     * Of two reports of one pool under one layout: the later, with the larger of their peaks. An
     * install of the same layout (the API, JMX) starts the pools' counters again; the run's peaks are
     * still those before it (a layout capped at the later ones alone fell back for what the earlier
     * held). A changed layout drops the reports before it (LAYOUT, below).
     */
    private static Pool laterWithPeaks(Pool a, Pool b) {
        Pool later = b.time().isBefore(a.time()) ? a : b;
        Pool earlier = later == a ? b : a;
        if (!later.kind().equals(earlier.kind())
                || later.pageSize() != earlier.pageSize()
                || later.maxSlice() != earlier.maxSlice()
                || later.pagesCap() != earlier.pagesCap()) {
            return later; // another pool at that index: another layout's
        }
        return new Pool(
                later.time(),
                later.index(),
                later.kind(),
                later.pageSize(),
                later.maxSlice(),
                later.pagesCap(),
                later.pages(),
                Math.max(later.pagesPeak(), earlier.pagesPeak()),
                Math.max(later.largestAlloc(), earlier.largestAlloc()),
                later.numberAllocs(),
                later.bytesInUse(),
                later.bytesReserved(),
                later.runs(),
                later.bytesInRuns(),
                later.allocsPeak() < 0 || earlier.allocsPeak() < 0
                        ? later.allocsPeak()
                        : Math.max(later.allocsPeak(), earlier.allocsPeak()));
    }

    /** One pools.PoolReport. */
    record Pool(
            Instant time,
            int index,
            String kind,
            long pageSize,
            long maxSlice,
            long pagesCap,
            long pages,
            long pagesPeak,
            long largestAlloc,
            long numberAllocs,
            long bytesInUse,
            long bytesReserved,
            long runs,
            long bytesInRuns,
            long allocsPeak) {}

    /** One pools.Usage. */
    record Usage(
            Instant time,
            long numberAllocs,
            long bytesInUse,
            long bytesPadding,
            long bytesReserved,
            long fallbackAllocs,
            long fallbackBytes,
            long collections,
            long collectionNanos,
            long failedAllocs) {}

    /** One pools.ProcessMemory, as the budget chart stacks it (bytes; -1 unknown). */
    record ProcessSample(
            Instant time,
            long rss,
            long rssPeak,
            long rssFile,
            long heapCommitted,
            long nonHeap,
            long poolsReserved,
            long directOutsidePools,
            long nativeOther) {}

    /** One pools.CallSite. */
    record Site(String site, long count, long bytes, long peakLiveBytes, long fallbacks) {}

    /** The refusals of one call site and size. */
    record Refusals(String site, long size, String outcome, long count, String reason) {}

    final Path file;
    /** The JFR repository read instead of {@link #file}, for a JVM that never wrote its recording; null when complete. */
    Path recoveredFrom;
    /**
     * With {@link #recoveredFrom}: the file's JVM was still running and writing it when it was read
     * (not killed): what it had written up to its last batch.
     */
    boolean running;
    /**
     * Why the pools stopped after an error inside them ({@link PoolAllocator#STOPPED}), as every batch
     * after the stop records it (and the requests the JDK served from then on, when recorded one by
     * one); null if they never stopped.
     */
    String stoppedBy;
    /** Read from a file the JDK's recorder wrote (with the pools' events in it), not the agent's own. */
    boolean byJdkRecorder;
    /** From {@code jdk.JVMInformation}: the process id; -1 when not recorded. */
    long pid = -1;
    /** From {@code jdk.JVMInformation}: when the JVM started, in epoch milliseconds; -1 when not recorded. */
    long jvmStart = -1;
    /**
     * The files read into this summary: {@link #file} alone, or every file of one JVM given together
     * (a recording set aside at {@code report.max_size}, {@code <file>.1}, and its successor).
     */
    final List<Path> parts = new ArrayList<>();

    private long events;
    /** The process's memory, from pools.ProcessMemory; no samples in recordings of older agents. */
    final Budget budget = new Budget();

    String layoutKind;
    String layoutYaml;
    String layoutSource;
    /** Whether the agent was loaded into a running JVM: the process's memory before is not in the recording. */
    boolean attachedLate;

    /** Where the layout came from, as the report's header says it: "from file", or "default: no layout file given". */
    String layoutOrigin() {
        return "default".equals(layoutSource) ? "default: no layout file given" : "from " + layoutSource;
    }

    Instant layoutTime = Instant.MIN;
    Instant start;
    Instant end;
    final Map<Integer, Pool> pools = new TreeMap<>();
    Usage usage;
    long peakReserved;
    long peakInUse;
    final Map<String, Site> sites = new LinkedHashMap<>();
    final Map<String, Refusals> refusals = new LinkedHashMap<>();
    /** Pool index to (bucket max to count), from the latest end-of-chunk histograms. */
    final Map<Integer, Map<Long, Long>> requestSizes = new TreeMap<>();
    /** Only when asked for: every report and usage, in time order. */
    final List<Pool> poolTimeline;

    final List<Usage> usageTimeline;

    final List<ProcessSample> processTimeline;

    private RecordingSummary(Path file, boolean timeline) {
        this.file = file;
        this.poolTimeline = timeline ? new ArrayList<>() : null;
        this.usageTimeline = timeline ? new ArrayList<>() : null;
        this.processTimeline = timeline ? new ArrayList<>() : null;
    }

    /**
     * Reads several recordings, as of a fleet. A file that is empty, missing, unreadable or damaged
     * (a JVM that recorded nothing, or was killed while writing) is left out with one line on stderr,
     * if another file holds data; any other problem (a foreign file) is a {@link BadInput}, as for
     * one file.
     */
    static List<RecordingSummary> readAll(List<Path> given, boolean timeline) {
        List<Path> files = distinctFiles(given);
        List<RecordingSummary> read = new ArrayList<>();
        List<String> leftOut = new ArrayList<>();
        for (Path f : files) {
            Path earlier = f.resolveSibling(f.getFileName() + ".1");
            if (!files.contains(earlier) && Files.isRegularFile(earlier)) {
                System.err.println("pools: " + earlier + " beside " + f + " may hold the earlier part of its JVM's"
                        + " recording (set aside at report.max_size); give both to read the whole run");
            }
            try {
                read.add(read(f, timeline));
            } catch (BadInput e) {
                if (!e.leftOutWithOthers || files.size() == 1) {
                    throw e;
                }
                leftOut.add(e.getMessage());
            }
        }
        if (read.isEmpty()) {
            throw new BadInput("none of the " + files.size() + " recordings holds data: " + leftOut.get(0));
        }
        for (String why : leftOut) {
            System.err.println("pools: left out " + why);
        }
        return oneSummaryPerJvm(read, timeline);
    }

    /**
     * The files given, each once: the same file named twice, or under two names (a hard link: a JVM
     * killed while setting its recording aside leaves {@code <file>} and {@code <file>.1} as one file),
     * would count its refusals and samples twice. Said on stderr.
     */
    private static List<Path> distinctFiles(List<Path> given) {
        List<Path> files = new ArrayList<>();
        for (Path f : given) {
            Path same = null;
            for (Path kept : files) {
                if (sameFile(kept, f)) {
                    same = kept;
                    break;
                }
            }
            if (same == null) {
                files.add(f);
            } else {
                System.err.println("pools: " + f + " is the same file as " + same + "; read once");
            }
        }
        return files;
    }

    private static boolean sameFile(Path a, Path b) {
        try {
            return Files.isSameFile(a, b);
        } catch (IOException | RuntimeException e) {
            return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
        }
    }

    /**
     * Files of the same JVM (a recording and what was set aside of it at {@code report.max_size}: in
     * one folder, named {@code <file>} and {@code <file>.1}, with the same process id and start time)
     * read as one recording, in the place of the first of them: its peaks the maximum over them, its
     * counters the latest, its refusals and samples all of theirs. Otherwise one JVM would count as
     * several, and its cumulative counters be summed. Files of other names are other JVMs, though
     * their process ids and start times agree (containers of one fleet, all pid 1, started in the
     * same millisecond).
     */
    private static List<RecordingSummary> oneSummaryPerJvm(List<RecordingSummary> read, boolean timeline) {
        Map<String, List<RecordingSummary>> byJvm = new LinkedHashMap<>();
        for (RecordingSummary s : read) {
            Path base = s.file.toAbsolutePath().normalize();
            String name = base.getFileName().toString();
            if (name.endsWith(".1")) {
                base = base.resolveSibling(name.substring(0, name.length() - 2));
            }
            String jvm = s.pid < 0 || s.jvmStart < 0 ? "file " + s.file : s.pid + "@" + s.jvmStart + " " + base;
            byJvm.computeIfAbsent(jvm, k -> new ArrayList<>()).add(s);
        }
        if (byJvm.size() == read.size()) {
            return read;
        }
        List<RecordingSummary> out = new ArrayList<>();
        for (List<RecordingSummary> jvm : byJvm.values()) {
            if (jvm.size() == 1) {
                out.add(jvm.get(0));
                continue;
            }
            // The file that ends last names it: the one at report.file, the others its earlier parts.
            RecordingSummary latest = jvm.get(0);
            for (RecordingSummary s : jvm) {
                if (s.end.isAfter(latest.end)) {
                    latest = s;
                }
            }
            List<Path> files = new ArrayList<>();
            files.add(latest.file);
            for (RecordingSummary s : jvm) {
                if (s != latest) {
                    files.add(s.file);
                }
            }
            // Read in the order they were written: each file begins with the layout as it stands, and that
            // statement, read before the earlier file's reports, dropped them as if from before an install
            // (a review: the peak of 3 pages held before an install of the same layout read as 1).
            List<Path> written = jvm.stream()
                    .sorted(Comparator.comparing((RecordingSummary s) -> s.start))
                    .map(s -> s.file)
                    .toList();
            out.add(read(files, written, timeline));
        }
        return out;
    }

    /**
     * Reads a recording; any problem with the file is a {@link BadInput} with one line naming it.
     *
     * <p>A JVM killed with SIGKILL leaves its {@code report.file} as of its last batch, not marked as
     * ended: what it holds is read, up to its last whole batch, and the summary says it was recovered.
     * The agent up to 01a91a3 recorded through the JDK's Flight Recorder, whose killed JVMs left
     * {@code report.file} empty or missing and what they had flushed in the JFR repository beside it
     * ({@code <file>.d}): that is read instead. Such a folder may also be given directly.
     */
    static RecordingSummary read(Path file, boolean timeline) {
        return read(List.of(file), List.of(file), timeline);
    }

    /** Reads the files of one JVM as one recording, named by the first ({@link #oneSummaryPerJvm}). */
    private static RecordingSummary read(List<Path> files, List<Path> written, boolean timeline) {
        for (int attempt = 1; ; attempt++) {
            RecordingSummary s = new RecordingSummary(files.get(0), timeline);
            s.parts.addAll(files);
            try {
                for (Path file : written) {
                    s.readPart(file);
                }
            } catch (Replaced e) {
                // Read again from the start, into a new summary: the one begun holds part of the old file.
                if (attempt == REPLACED_ATTEMPTS) {
                    throw new BadInput(
                            e.file + ": replaced by a new JVM's recording while it was read, " + attempt
                                    + " times in a row; read it again in a moment",
                            true);
                }
                continue;
            }
            s.check();
            return s;
        }
    }

    /** How many times a recording is read that a new JVM's file keeps replacing while it is read. */
    static final int REPLACED_ATTEMPTS = 3;

    /**
     * The file at a recording's name was replaced while it was read in place (a new JVM of the same
     * {@code report.file} renames its own file over an ended recording): what was read may mix the two.
     */
    private static final class Replaced extends RuntimeException {
        final Path file;

        Replaced(Path file) {
            super(null, null, false, false);
            this.file = file;
        }
    }

    /** For tests: run between the look at a file and its reading in place; null otherwise. */
    static volatile Runnable beforeReadingInPlace;

    /** Reads one file into this summary; any problem with it is a {@link BadInput} with one line naming it. */
    private void readPart(Path file) {
        RecordingSummary s = this;
        try {
            List<Path> chunks = recoverable(file);
            if (chunks == null) {
                Object before = fileKey(file);
                checkReadable(file);
                UnfinishedChunk.Whole whole = UnfinishedChunk.whole(file);
                boolean inPlace = whole.readable().equals(file);
                try {
                    if (inPlace && beforeReadingInPlace != null) {
                        beforeReadingInPlace.run();
                    }
                    s.readFile(whole.readable(), !whole.ended());
                } catch (IOException | RuntimeException e) {
                    if (inPlace && before != null && !before.equals(fileKey(file))) {
                        throw new Replaced(file);
                    }
                    throw e;
                } finally {
                    if (!inPlace) {
                        Files.deleteIfExists(whole.readable());
                    }
                }
                // A file read in place is an ended or a killed JVM's, which no longer changes; but a new JVM
                // of the same name may have renamed its own file over it meanwhile, which the reads after
                // the first then found. A copy (a running JVM's file) is one file's whole chunks.
                if (inPlace && before != null && !before.equals(fileKey(file))) {
                    throw new Replaced(file);
                }
                // Only the agent's own file says whether its JVM ended: the JDK's recorder leaves the
                // flag unset in a file it dumps (JFR.dump, disk=false) from a JVM that runs on, or ended.
                if (!whole.ended() && !s.byJdkRecorder) {
                    s.recoveredFrom = file;
                    s.running = whole.running();
                }
            } else {
                s.recoveredFrom = Files.isDirectory(file) ? file : repositoryOf(file);
                for (Path chunk : chunks) {
                    s.readFile(chunk, true);
                }
            }
        } catch (NoSuchFileException e) {
            throw new BadInput(file + ": no such file", true);
        } catch (AccessDeniedException e) {
            throw new BadInput(file + ": cannot read the file (permission denied)", true);
        } catch (EOFException e) {
            throw new BadInput(TRUNCATED.formatted(file), true);
        } catch (IOException e) {
            // Not JFR at all was said above, from the file's first bytes; this is a damaged or newer one.
            throw new BadInput(file + ": not a readable JFR recording (" + e.getMessage() + ")", true);
        } catch (IndexOutOfBoundsException e) {
            // The JDK's reader, on a chunk cut inside its declarations or its constant pool.
            throw new BadInput(TRUNCATED.formatted(file), true);
        } catch (RuntimeException e) {
            if (e instanceof BadInput || e instanceof Replaced) {
                throw e;
            }
            throw new BadInput(file + ": not a readable JFR recording (" + e + ")", true);
        }
    }

    /** What every summary must hold once its files are read; sorts the timelines. */
    private void check() {
        RecordingSummary s = this;
        Path file = parts.size() == 1 ? this.file : this.file.resolveSibling(String.join(" + ", partNames()));
        if (s.layoutYaml == null && !s.pools.isEmpty()) {
            throw new BadInput(file + ": pools reports without the layout they came from (no pools.Layout event: its"
                    + " JVM ended as the recording started); nothing to report from it");
        }
        if (s.running && (s.layoutYaml == null || s.pools.isEmpty()) && !s.byJdkRecorder) {
            // The agent's own file, of a JVM that writes it still: it has begun the file and written no batch
            // yet. Neither killed nor another tool's: said so, not as either.
            throw new BadInput(
                    file + ": a running JVM writes this recording and has written no batch to it yet (the first comes"
                            + " one report.period after its start, at most a second; with report.period: 0 the only"
                            + " one is at its end); read it again then",
                    true);
        }
        if (s.layoutYaml != null && s.pools.isEmpty() && s.pid >= 0) {
            // The agent's own file, with its JVM's event and layout and no batch: killed before it.
            throw new BadInput(
                    file + ": a recording of the pools with its layout but no batch: its JVM was killed before"
                            + " its first (with report.period: 0, the only one is at the end)",
                    true);
        }
        if (s.layoutYaml == null || s.pools.isEmpty()) {
            throw new BadInput(file + ": "
                    + (s.recoveredFrom == null || !Files.isDirectory(s.recoveredFrom)
                            ? "a JFR recording"
                            : "the JFR repository " + s.recoveredFrom)
                    + " without pools events (" + s.events + " other events); record with -javaagent:pools.jar, which"
                    + " writes pools-<pid>.jfr"
                    + (s.recoveredFrom == null || !Files.isDirectory(s.recoveredFrom)
                            ? ""
                            : ", and a report.period above 0 for" + " a JVM that may be killed"));
        }
        if (poolTimeline != null) {
            s.poolTimeline.sort(Comparator.comparing(Pool::time));
            s.usageTimeline.sort(Comparator.comparing(Usage::time));
            s.processTimeline.sort(Comparator.comparing(ProcessSample::time));
        }
    }

    /** The file names read into this summary, the first being {@link #file}'s. */
    List<String> partNames() {
        List<String> names = new ArrayList<>();
        for (Path p : parts) {
            names.add(p.getFileName().toString());
        }
        return names;
    }

    /** How the report names this recording: its file, and the earlier parts read with it. */
    String name() {
        if (parts.size() <= 1) {
            return file.toString();
        }
        return file + " (with " + String.join(", ", partNames().subList(1, parts.size())) + ")";
    }

    /** What tells the file at {@code path} from another (device and inode), or null if there is none. */
    private static Object fileKey(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The JFR repository folder the agent up to 01a91a3 kept beside {@code recording} while its JVM ran. */
    static Path repositoryOf(Path recording) {
        return recording.resolveSibling(recording.getFileName() + ".d");
    }

    /**
     * The chunk files to read instead of {@code file}, in name (so time) order: those of a JFR
     * repository folder given directly, or those beside an empty or missing recording; null when
     * {@code file} is to be read as it is.
     */
    private static List<Path> recoverable(Path file) throws IOException {
        Path folder;
        if (Files.isDirectory(file)) {
            if (!isRepository(file)) {
                // Any other folder's recordings are many JVMs', which one summary would mix into one.
                throw new BadInput(file + ": is a directory, not a recording (give its recordings, one file per JVM:"
                        + " report " + file.resolve("*.jfr") + ")");
            }
            folder = file;
        } else if (Files.isRegularFile(file) && Files.size(file) > 0) {
            return null;
        } else {
            folder = repositoryOf(file);
            if (!Files.isDirectory(folder)) {
                return null;
            }
        }
        List<Path> chunks = new ArrayList<>();
        // The folder itself (a JFR repository given directly), or the repository JFR made in it.
        try (Stream<Path> found = Files.walk(folder, 2)) {
            List<Path> files = found.filter(p -> p.getFileName().toString().endsWith(".jfr") && Files.isRegularFile(p))
                    .sorted()
                    .toList();
            for (Path f : files) {
                // A chunk JFR had opened but not yet written when its JVM was killed holds nothing.
                if (Files.size(f) > 0) {
                    chunks.add(f);
                }
            }
        }
        if (chunks.isEmpty()) {
            if (Files.isDirectory(file)) {
                throw new BadInput(file + ": is a directory without JFR chunk files, not a recording");
            }
            throw new BadInput(
                    file + ": empty or missing, and the JFR repository beside it (" + folder + ") holds no data: the"
                            + " JVM ended or was killed before its recording's first flush; nothing was recorded",
                    true);
        }
        return chunks;
    }

    /** JFR's repository folder for one JVM: {@code 2026_12_05_10_00_00_1234}. */
    private static final Pattern JFR_REPOSITORY = Pattern.compile("\\d{4}(_\\d{2}){5}_\\d+");

    /**
     * A folder that holds one JVM's chunk files: a JFR repository, or the folder the agent up to
     * 01a91a3 kept beside its recording ({@code <report.file>.d}, with JFR's repository in it).
     */
    private static boolean isRepository(Path folder) {
        String name = folder.toAbsolutePath().normalize().getFileName() + "";
        return name.endsWith(".d") || JFR_REPOSITORY.matcher(name).matches();
    }

    private static final String TRUNCATED =
            "%s: the recording is truncated or damaged (it ends in the middle of what it declares; was the JVM"
                    + " killed while writing it, or the file cut?)";

    private static void checkReadable(Path file) throws IOException {
        if (Files.size(file) == 0) {
            throw new BadInput(
                    file + ": the file is empty (expected a JFR recording written by the pools agent;"
                            + " a JVM killed with SIGKILL leaves it empty, and its data in the JFR repository: see the README)",
                    true);
        }
        if (!startsWithMagic(file)) {
            throw new BadInput(file + ": not a JFR recording (expected a .jfr file written by the pools agent)");
        }
    }

    /**
     * Reads one file's events. A chunk of a killed JVM may end in the middle of an event: what was
     * read before that counts ({@code partial}); in a recording written at exit that is an error.
     */
    private void readFile(Path path, boolean partial) throws IOException {
        Path readable = partial ? UnfinishedChunk.readable(path) : path;
        List<ChunkChecksum.Mark> marks = new ArrayList<>();
        List<String> declared = declaredTypes(readable);
        long before = events;
        try (RecordingFile in = new RecordingFile(readable)) {
            byJdkRecorder |= declaresOthers(declared);
            while (in.hasMoreEvents()) {
                RecordedEvent e = in.readEvent();
                if (e.getEventType().getName().equals(ChunkChecksum.EVENT)) {
                    marks.add(new ChunkChecksum.Mark(
                            e.getLong(ChunkChecksum.POSITION),
                            e.getLong(ChunkChecksum.CRC32),
                            e.getLong(ChunkChecksum.CONSTANT_POOL),
                            e.getBoolean(ChunkChecksum.LAST)));
                    continue;
                }
                accept(e);
                events++;
            }
        } catch (EOFException e) {
            if (!partial) {
                throw e;
            }
        } catch (InternalError e) {
            // JDK 25's reader, on a declared name that is no Java name (a changed byte): "is not a valid Java
            // type". Before, it reached the user as an internal error.
            throw new IOException(e.getMessage(), e);
        }
        try {
            // The agent's own file ends each batch with a checksum (ChunkChecksum); the JDK's recorder
            // and agents before 2026-12-06 wrote none.
            String damage = misspelt(declared);
            if (damage == null && marks.isEmpty() && events > before && declared.contains(ChunkChecksum.EVENT)) {
                damage = "it declares checksums and holds events, but no checksum was read";
            }
            if (damage == null && !marks.isEmpty()) {
                damage = ChunkChecksum.damage(readable, marks);
            }
            if (damage != null) {
                throw new BadInput(
                        path + ": the recording is damaged (" + damage + "); a byte changed after the agent"
                                + " wrote it, so none of its figures can be trusted",
                        true);
            }
        } finally {
            if (!readable.equals(path)) {
                Files.deleteIfExists(readable);
            }
        }
    }

    /**
     * The names of the event types the file declares; none for a file cut short, whose declarations
     * cannot all be read (what it holds is read all the same).
     */
    private static List<String> declaredTypes(Path file) {
        try (RecordingFile in = new RecordingFile(file)) {
            return in.readEventTypes().stream().map(EventType::getName).toList();
        } catch (IOException | RuntimeException | InternalError e) {
            return List.of(); // cut short: see above
        }
    }

    /**
     * Whether the file declares event types other than the pools' and the JVM's, as the JDK's recorder
     * does (the agent's own file declares those only).
     */
    private static boolean declaresOthers(List<String> declared) {
        for (String name : declared) {
            if (!name.startsWith("pools.") && !name.equals(Recorder.JVM_INFORMATION)) {
                return true;
            }
        }
        return false;
    }

    /** The event types the agent's own file declares: its events, the JVM's and the checksum. */
    private static final List<String> AGENT_TYPES = List.of(
            EventNames.LAYOUT,
            EventNames.POOL_REPORT,
            EventNames.USAGE,
            EventNames.ALLOCATION_REFUSED,
            EventNames.CALL_SITE,
            EventNames.REQUEST_SIZES,
            EventNames.PROCESS_MEMORY,
            Recorder.JVM_INFORMATION,
            ChunkChecksum.EVENT);

    /**
     * A declared name one character off a name of {@link #AGENT_TYPES}: a byte changed in the
     * declarations, which the checksums cannot show when it is the checksum's own name. Null if none.
     */
    private static String misspelt(List<String> declared) {
        for (String name : declared) {
            for (String known : AGENT_TYPES) {
                if (name.length() == known.length() && !name.equals(known)) {
                    int differ = 0;
                    for (int i = 0; i < name.length() && differ < 2; i++) {
                        differ += name.charAt(i) == known.charAt(i) ? 0 : 1;
                    }
                    if (differ == 1) {
                        return "it declares the event type '" + name + "', one character off '" + known + "'";
                    }
                }
            }
        }
        return null;
    }

    /** A JFR file starts with the bytes {@code FLR\0}. */
    private static boolean startsWithMagic(Path file) throws IOException {
        try (var in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(4);
            return head.length == 4 && head[0] == 'F' && head[1] == 'L' && head[2] == 'R' && head[3] == 0;
        }
    }

    private void accept(RecordedEvent e) {
        Instant t = e.getEndTime();
        if (start == null || t.isBefore(start)) {
            start = t;
        }
        if (end == null || t.isAfter(end)) {
            end = t;
        }
        switch (e.getEventType().getName()) {
            case Recorder.JVM_INFORMATION -> {
                pid = e.getLong("pid");
                jvmStart = e.getInstant("jvmStartTime").toEpochMilli();
            }
            case EventNames.PROCESS_MEMORY -> {
                budget.accept(e);
                if (processTimeline != null) {
                    long pools = e.getLong(EventNames.POOLS_RESERVED);
                    processTimeline.add(new ProcessSample(
                            t,
                            e.getLong(EventNames.RSS),
                            e.getLong(EventNames.RSS_PEAK),
                            e.getLong(EventNames.RSS_FILE),
                            e.getLong(EventNames.HEAP_COMMITTED),
                            e.getLong(EventNames.METASPACE)
                                    + e.getLong(EventNames.CODE_CACHE)
                                    + e.getLong(EventNames.OTHER_NON_HEAP),
                            pools,
                            Math.max(0, Budget.directOutside(e)),
                            e.getLong(EventNames.NATIVE_OTHER)));
                }
            }
            case EventNames.LAYOUT -> {
                if (!t.isBefore(layoutTime)) {
                    if (layoutYaml != null && !layoutYaml.equals(e.getString(EventNames.LAYOUT_YAML))) {
                        pools.entrySet().removeIf(p -> p.getValue().time().isBefore(t));
                        requestSizes.clear();
                    }
                    layoutTime = t;
                    layoutKind = e.getString(EventNames.KIND);
                    layoutYaml = e.getString(EventNames.LAYOUT_YAML);
                    layoutSource = e.getString(EventNames.SOURCE);
                    attachedLate |= e.hasField(EventNames.ATTACHED_LATE) && e.getBoolean(EventNames.ATTACHED_LATE);
                }
            }
            case EventNames.POOL_REPORT -> {
                Pool p = new Pool(
                        t,
                        e.getInt(EventNames.INDEX),
                        e.getString(EventNames.KIND),
                        e.getLong(EventNames.PAGE_SIZE),
                        e.getLong(EventNames.MAX_SLICE),
                        e.getLong(EventNames.PAGES_CAP),
                        e.getLong(EventNames.PAGES),
                        e.getLong(EventNames.PAGES_PEAK),
                        e.getLong(EventNames.LARGEST_ALLOC),
                        e.getLong(EventNames.NUMBER_ALLOCS),
                        e.getLong(EventNames.BYTES_IN_USE),
                        e.getLong(EventNames.BYTES_RESERVED),
                        // Recordings of agents before runs were reported have neither field.
                        e.hasField(EventNames.RUNS) ? e.getLong(EventNames.RUNS) : 0,
                        e.hasField(EventNames.BYTES_IN_RUNS) ? e.getLong(EventNames.BYTES_IN_RUNS) : 0,
                        // Recordings of agents before it have none: unknown, as for a sliced pool.
                        e.hasField(EventNames.ALLOCS_PEAK) ? e.getLong(EventNames.ALLOCS_PEAK) : -1);
                if (!t.isBefore(layoutTime)) {
                    pools.merge(p.index(), p, RecordingSummary::laterWithPeaks);
                }
                if (poolTimeline != null) {
                    poolTimeline.add(p);
                }
            }
            case EventNames.USAGE -> {
                Usage u = new Usage(
                        t,
                        e.getLong(EventNames.NUMBER_ALLOCS),
                        e.getLong(EventNames.BYTES_IN_USE),
                        e.getLong(EventNames.BYTES_PADDING),
                        e.getLong(EventNames.BYTES_RESERVED),
                        e.getLong(EventNames.FALLBACK_ALLOCS),
                        e.getLong(EventNames.FALLBACK_BYTES),
                        // Recordings made before these fields existed read as none.
                        e.hasField(EventNames.COLLECTIONS) ? e.getLong(EventNames.COLLECTIONS) : 0,
                        e.hasField(EventNames.COLLECTION_TIME)
                                ? e.getDuration(EventNames.COLLECTION_TIME).toNanos()
                                : 0,
                        e.hasField(EventNames.FAILED_ALLOCS) ? e.getLong(EventNames.FAILED_ALLOCS) : -1);
                // Every batch says whether the pools stopped: refusals recorded one by one may all be left out.
                String stop = e.hasField(EventNames.STOPPED_BY) ? e.getString(EventNames.STOPPED_BY) : null;
                if (stop != null && stoppedBy == null) {
                    stoppedBy = stop;
                }
                if (usage == null || !u.time().isBefore(usage.time())) {
                    usage = u;
                }
                peakReserved = Math.max(peakReserved, u.bytesReserved());
                peakInUse = Math.max(peakInUse, u.bytesInUse());
                if (usageTimeline != null) {
                    usageTimeline.add(u);
                }
            }
            case EventNames.CALL_SITE -> {
                Site s = new Site(
                        e.getString(EventNames.SITE),
                        e.getLong(EventNames.COUNT),
                        e.getLong(EventNames.BYTES),
                        e.getLong(EventNames.PEAK_LIVE_BYTES),
                        e.getLong(EventNames.FALLBACKS));
                sites.merge(s.site(), s, (a, b) -> b.count() >= a.count() ? b : a);
            }
            case EventNames.REQUEST_SIZES -> {
                if (!t.isBefore(layoutTime)) {
                    // Histograms count from install on and only grow: the largest count per bucket is the latest.
                    requestSizes
                            .computeIfAbsent(e.getInt(EventNames.INDEX), i -> new TreeMap<>())
                            .merge(e.getLong(EventNames.BUCKET_MAX), e.getLong(EventNames.COUNT), Math::max);
                }
            }
            case EventNames.ALLOCATION_REFUSED -> {
                String key = e.getString(EventNames.SITE) + "|" + e.getLong(EventNames.SIZE) + "|"
                        + e.getString(EventNames.OUTCOME);
                Refusals r = refusals.get(key);
                String reason = e.getString(EventNames.REASON);
                if (reason != null && reason.startsWith(PoolAllocator.STOPPED)) {
                    stoppedBy = reason;
                }
                refusals.put(
                        key,
                        new Refusals(
                                e.getString(EventNames.SITE),
                                e.getLong(EventNames.SIZE),
                                e.getString(EventNames.OUTCOME),
                                r == null ? 1 : r.count() + 1,
                                reason));
            }
            default -> {}
        }
    }

    /**
     * Every request the pools did not serve (the JDK's fallbacks and the refusals to the host), by the
     * pools' counters since start; from a recording made before those counted the refusals to the host,
     * those recorded one by one. (A refusal recorded while a batch was taken may be in the file and not
     * yet in the batch's counters: never fewer than those recorded.)
     */
    long refusals() {
        long recorded = refusedCount(null);
        if (usage == null || usage.failedAllocs() < 0) {
            return recorded;
        }
        return Math.max(recorded, usage.fallbackAllocs() + usage.failedAllocs());
    }

    /** The refusals recorded one by one with this outcome ({@link EventNames#OUTCOME_FALLBACK}, ...); null: all. */
    long refusedCount(String outcome) {
        long n = 0;
        for (Refusals r : refusals.values()) {
            if (outcome == null || outcome.equals(r.outcome())) {
                n += r.count();
            }
        }
        return n;
    }

    /** The recorded layout's pool lines, without caps, for comparing recordings. */
    List<String> poolShapes() {
        List<String> out = new ArrayList<>();
        for (Pool p : pools.values()) {
            out.add("pool " + p.index() + ": " + p.kind() + ", page_size " + p.pageSize() + ", max_slice "
                    + p.maxSlice() + ", pages " + (p.pagesCap() < 0 ? "uncapped" : p.pagesCap()));
        }
        return out;
    }
}
