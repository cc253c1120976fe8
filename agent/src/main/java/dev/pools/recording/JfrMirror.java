package dev.pools.recording;

import dev.pools.log.Log;
import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jdk.jfr.AnnotationElement;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventFactory;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.ValueDescriptor;

/**
 * The {@code pools.*} events for a JFR recording someone else runs in this JVM (a user's
 * {@code -XX:StartFlightRecording} or {@code jcmd JFR.start}): while JFR is not initialised, nothing
 * is done (one volatile read), so that the pools' own recording never starts JFR; once it is, each
 * event class gets a JFR event type of the same name, labels and fields ({@link EventFactory}),
 * made at its first event.
 */
public final class JfrMirror {

    /** An event class's JFR type and its fields, in the type's order. */
    private record Mirror(EventFactory factory, List<Field> fields) {}

    private static final Map<Class<?>, Mirror> MIRRORS = new ConcurrentHashMap<>();

    private static volatile boolean failed;

    /** Whether JFR's chunks end with a batch of ours. Guarded by the class. */
    private static boolean chunkEnds;

    private JfrMirror() {}

    /** Commits {@code e}, one of {@link Recorder#EVENT_CLASSES}, to JFR if JFR runs in this JVM. */
    public static void commit(FileEvent e) {
        if (failed || !FlightRecorder.isInitialized()) {
            return;
        }
        try {
            Mirror m = MIRRORS.computeIfAbsent(e.getClass(), JfrMirror::mirror);
            Event event = m.factory().newEvent();
            List<Field> fields = m.fields();
            for (int i = 0; i < fields.size(); i++) {
                event.set(i, fields.get(i).get(e));
            }
            event.commit();
        } catch (ReflectiveOperationException | RuntimeException x) {
            failed = true;
            Log.once("jfr-mirror", "the pools events are left out of this JVM's other JFR recordings: " + x);
        }
    }

    /**
     * Has every chunk JFR ends hold {@code batch}'s events ({@link #endChunksWith}) from the moment JFR
     * runs in this JVM: now if it does, else when it starts (a listener of JFR's own).
     */
    static void whenJfrRuns(Runnable batch) {
        try {
            FlightRecorder.addListener(new Started(batch));
        } catch (RuntimeException x) {
            failed = true;
            Log.once("jfr-mirror", "the pools events are left out of this JVM's other JFR recordings: " + x);
        }
    }

    /** JFR's call when it starts: a named class, not a lambda. */
    private static final class Started implements FlightRecorderListener {
        private final Runnable batch;

        Started(Runnable batch) {
            this.batch = batch;
        }

        @Override
        public void recorderInitialized(FlightRecorder recorder) {
            endChunksWith(batch);
        }
    }

    /**
     * If JFR runs in this JVM, makes every chunk it ends (its recordings' ends and JFR's own shutdown
     * included) hold {@code batch}'s events, as a periodic event of JFR's with the period
     * {@code endChunk}: the pools' own shutdown runs beside JFR's, which may write its recordings first.
     * Done once.
     */
    private static void endChunksWith(Runnable batch) {
        if (failed || !FlightRecorder.isInitialized()) {
            return;
        }
        synchronized (JfrMirror.class) {
            if (chunkEnds) {
                return;
            }
            chunkEnds = true;
        }
        try {
            Class<? extends Event> usage = MIRRORS.computeIfAbsent(UsageEvent.class, JfrMirror::mirror)
                    .factory()
                    .newEvent()
                    .getClass();
            FlightRecorder.addPeriodicEvent(usage, batch);
        } catch (RuntimeException x) {
            failed = true;
            Log.once("jfr-mirror", "the pools events are left out of this JVM's other JFR recordings: " + x);
        }
    }

    private static Mirror mirror(Class<?> c) {
        List<AnnotationElement> annotations = new ArrayList<>();
        annotations.add(
                new AnnotationElement(Name.class, c.getAnnotation(Name.class).value()));
        add(annotations, c.getAnnotation(Label.class));
        add(annotations, c.getAnnotation(Description.class));
        Category category = c.getAnnotation(Category.class);
        if (category != null) {
            annotations.add(new AnnotationElement(Category.class, category.value()));
        }
        StackTrace stack = c.getAnnotation(StackTrace.class);
        annotations.add(new AnnotationElement(StackTrace.class, stack == null || stack.value()));
        List<ValueDescriptor> descriptors = new ArrayList<>();
        List<Field> fields = new ArrayList<>();
        for (Field f : EventFile.recordedFields(c)) {
            List<AnnotationElement> fa = new ArrayList<>();
            add(fa, f.getAnnotation(Label.class));
            add(fa, f.getAnnotation(Description.class));
            add(fa, f.getAnnotation(DataAmount.class));
            add(fa, f.getAnnotation(Timespan.class));
            descriptors.add(new ValueDescriptor(f.getType(), f.getName(), fa));
            fields.add(f);
        }
        return new Mirror(EventFactory.create(annotations, descriptors), List.copyOf(fields));
    }

    /** An annotation with a single {@code value}, as JFR's annotation element. */
    private static void add(List<AnnotationElement> to, Annotation a) {
        if (a == null) {
            return;
        }
        try {
            Object value = a.annotationType().getMethod("value").invoke(a);
            to.add(new AnnotationElement(a.annotationType(), value));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
