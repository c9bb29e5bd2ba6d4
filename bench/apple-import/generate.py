#!/usr/bin/env python3
"""Writes an Apple Health export in the shapes the Health app uses, for benchmarks and the demo.

A day of a heavy Apple Watch user: heart rate every few minutes, active and basal energy in short
intervals, steps and distance from phone and watch, stand hours, exercise minutes, sleep stages,
heart-rate variability with beat series, blood pressure as a correlation repeated at top level, and
a workout with statistics, events and a GPX route. `--days 365` is about 130 MB of export.xml.

usage: generate.py OUT_DIR [--days N] [--start YYYY-MM-DD] [--zip] [--seed S]
Writes OUT_DIR/apple_health_export/export.xml and workout-routes/*.gpx (and OUT_DIR/export.zip).
"""
import argparse
import datetime as dt
import os
import random
import zipfile

WATCH = "&lt;&lt;HKDevice: 0x{addr:x}&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2&gt;"
PHONE = "&lt;&lt;HKDevice: 0x{addr:x}&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.2.1&gt;"
HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 13 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
]>
<HealthData locale="en_NL">
 <ExportDate value="{now}"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-05-20" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeAPositive" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
"""


def stamp(t):
    """'2024-01-01 01:01:36 +0100' in the fixed +0100 offset the generator writes."""
    return (t + dt.timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S +0100")


class Writer:
    def __init__(self, out, rng):
        self.out, self.rng = out, rng

    def device(self, template):
        # The Health app writes the same device under many process addresses.
        return template.format(addr=0x300000000 + self.rng.randrange(1 << 24))

    def record(self, typ, source, version, device, unit, start, end, value, inner=""):
        dev = f' device="{device}"' if device else ""
        unit_attr = f' unit="{unit}"' if unit else ""
        head = (f' <Record type="{typ}" sourceName="{source}" sourceVersion="{version}"{dev}{unit_attr} '
                f'creationDate="{stamp(end)}" startDate="{stamp(start)}" endDate="{stamp(end)}" value="{value}"')
        self.out.write(head + (f">\n{inner}  </Record>\n" if inner else "/>\n"))


def day(w, d, rng, routes, write_routes):
    watch, phone = "Alexandre's Apple Watch", "Alexandre's iPhone"
    t = d
    while t < d + dt.timedelta(days=1):  # heart rate every ~5 minutes
        w.record("HKQuantityTypeIdentifierHeartRate", watch, "10.2", w.device(WATCH), "count/min", t, t, rng.randint(52, 150),
                 '  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>\n')
        t += dt.timedelta(seconds=rng.randint(200, 400))
    for i in range(250):  # active energy in ~1-minute pieces over the waking day
        s = d + dt.timedelta(hours=7, seconds=i * 230)
        w.record("HKQuantityTypeIdentifierActiveEnergyBurned", watch, "10.2", w.device(WATCH), "Cal", s, s + dt.timedelta(seconds=60),
                 round(rng.uniform(0.05, 2.5), 3))
    for i in range(96):
        s = d + dt.timedelta(minutes=15 * i)
        w.record("HKQuantityTypeIdentifierBasalEnergyBurned", watch, "10.2", w.device(WATCH), "kcal", s, s + dt.timedelta(minutes=15),
                 round(rng.uniform(10, 14), 3))
    for source, version, dev in ((watch, "10.2", WATCH), (phone, "17.2.1", PHONE)):
        for i in range(60):
            s = d + dt.timedelta(hours=7, minutes=15 * i)
            e = s + dt.timedelta(minutes=rng.randint(2, 10))
            w.record("HKQuantityTypeIdentifierStepCount", source, version, w.device(dev), "count", s, e, rng.randint(10, 900))
            w.record("HKQuantityTypeIdentifierDistanceWalkingRunning", source, version, w.device(dev), "km", s, e,
                     round(rng.uniform(0.01, 0.6), 5))
    for h in range(8, 22):
        s = d + dt.timedelta(hours=h)
        w.record("HKCategoryTypeIdentifierAppleStandHour", watch, "10.2", w.device(WATCH), None, s, s + dt.timedelta(hours=1),
                 rng.choice(["HKCategoryValueAppleStandHourStood", "HKCategoryValueAppleStandHourIdle"]))
    for i in range(30):
        s = d + dt.timedelta(hours=17, minutes=i)
        w.record("HKQuantityTypeIdentifierAppleExerciseTime", watch, "10.2", w.device(WATCH), "min", s, s + dt.timedelta(minutes=1), 1)
    s = d - dt.timedelta(hours=1)
    for i in range(16):  # sleep stages of the night before
        e = s + dt.timedelta(minutes=rng.randint(10, 40))
        w.record("HKCategoryTypeIdentifierSleepAnalysis", watch, "10.2", w.device(WATCH), None, s, e,
                 rng.choice(["HKCategoryValueSleepAnalysisAsleepCore", "HKCategoryValueSleepAnalysisAsleepDeep",
                             "HKCategoryValueSleepAnalysisAsleepREM", "HKCategoryValueSleepAnalysisAwake"]),
                 '  <MetadataEntry key="HKTimeZone" value="Europe/Amsterdam"/>\n')
        s = e
    for k in range(4):  # HRV with its beat series
        s = d + dt.timedelta(hours=2 + 5 * k)
        # a beat every 0.9 s from the record's start, in local time with centiseconds as French exports write them
        times = [s + dt.timedelta(hours=1, seconds=j * 0.9) for j in range(60)]
        beats = "".join(f'    <InstantaneousBeatsPerMinute bpm="{rng.randint(55, 80)}" time="{t:%H:%M:%S},{t.microsecond // 10000:02d}"/>\n'
                        for t in times)
        w.record("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", watch, "10.2", w.device(WATCH), "ms", s, s + dt.timedelta(minutes=1),
                 round(rng.uniform(20, 80), 4), f"   <HeartRateVariabilityMetadataList>\n{beats}   </HeartRateVariabilityMetadataList>\n")
    if d.weekday() == 0:  # weekly blood pressure: top-level copies, then the correlation holding them
        s = d + dt.timedelta(hours=8)
        sys_, dia = rng.randint(110, 135), rng.randint(65, 85)
        parts = [("HKQuantityTypeIdentifierBloodPressureSystolic", sys_), ("HKQuantityTypeIdentifierBloodPressureDiastolic", dia)]
        for typ, v in parts:
            w.record(typ, "Omron", "7.1", None, "mmHg", s, s, v)
        w.out.write(f' <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" sourceVersion="7.1" '
                    f'creationDate="{stamp(s)}" startDate="{stamp(s)}" endDate="{stamp(s)}">\n')
        for typ, v in parts:
            w.out.write("  ")
            w.record(typ, "Omron", "7.1", None, "mmHg", s, s, v)
        w.out.write(" </Correlation>\n")
    # a 40-minute run with statistics, events and a route
    s = d + dt.timedelta(hours=18)
    e = s + dt.timedelta(minutes=40)
    name = f"route_{d:%Y-%m-%d}_6.00pm.gpx"
    w.out.write(f' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="40" durationUnit="min" sourceName="{watch}" '
                f'sourceVersion="10.2" device="{w.device(WATCH)}" creationDate="{stamp(e)}" startDate="{stamp(s)}" endDate="{stamp(e)}">\n'
                f'  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n  <MetadataEntry key="HKWeatherTemperature" value="56 degF"/>\n'
                f'  <MetadataEntry key="HKTimeZone" value="Europe/Amsterdam"/>\n'
                f'  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="{stamp(s)}" duration="20" durationUnit="min"/>\n'
                f'  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="{stamp(s)}" endDate="{stamp(e)}" sum="{rng.randint(300, 450)}" unit="kcal"/>\n'
                f'  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="{stamp(s)}" endDate="{stamp(e)}" sum="{round(rng.uniform(6, 9), 3)}" unit="km"/>\n'
                f'  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="{stamp(s)}" endDate="{stamp(e)}" average="152" minimum="98" maximum="178" unit="count/min"/>\n'
                f'  <WorkoutRoute sourceName="{watch}" sourceVersion="10.2" creationDate="{stamp(e)}" startDate="{stamp(s)}" endDate="{stamp(e)}">\n'
                f'   <FileReference path="/workout-routes/{name}"/>\n  </WorkoutRoute>\n </Workout>\n')
    if write_routes:
        points = "".join(f'<trkpt lon="{4.9 + i * 1e-4:.6f}" lat="{52.37 + i * 5e-5:.6f}"><ele>{2 + (i % 7) * 0.1:.3f}</ele>'
                         f'<time>{(s + dt.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")}</time><extensions><speed>2.8</speed>'
                         f'<course>90</course><hAcc>3.5</hAcc><vAcc>2.1</vAcc></extensions></trkpt>\n' for i in range(0, 2400, 4))
        with open(os.path.join(routes, name), "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Apple Health Export" '
                    f'xmlns="http://www.topografix.com/GPX/1/1">\n<trk><name>Route</name><trkseg>\n{points}</trkseg></trk>\n</gpx>\n')


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--days", type=int, default=365)
    p.add_argument("--zip", action="store_true", help="also write OUT/export.zip as the Health app does")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", default="2024-01-01", help="first day (UTC), e.g. a year ago for the demo")
    p.add_argument("--no-routes", action="store_true", help="reference GPX files without writing them")
    a = p.parse_args()
    rng = random.Random(a.seed)
    folder = os.path.join(a.out, "apple_health_export")
    routes = os.path.join(folder, "workout-routes")
    os.makedirs(routes, exist_ok=True)
    first = dt.datetime.strptime(a.start, "%Y-%m-%d")
    with open(os.path.join(folder, "export.xml"), "w") as out:
        out.write(HEADER.format(now=stamp(first + dt.timedelta(days=a.days))))
        w = Writer(out, rng)
        for n in range(a.days):
            day(w, first + dt.timedelta(days=n), rng, routes, not a.no_routes)
        for n in range(a.days):
            date = (first + dt.timedelta(days=n)).strftime("%Y-%m-%d")
            out.write(f' <ActivitySummary dateComponents="{date}" activeEnergyBurned="{rng.randint(300, 900)}" activeEnergyBurnedGoal="630" '
                      f'activeEnergyBurnedUnit="kcal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="{rng.randint(10, 90)}" '
                      'appleExerciseTimeGoal="30" appleStandHours="12" appleStandHoursGoal="12"/>\n')
        out.write("</HealthData>\n")
    if a.zip:
        with zipfile.ZipFile(os.path.join(a.out, "export.zip"), "w", zipfile.ZIP_DEFLATED) as z:
            for base, _, files in os.walk(folder):
                for f in files:
                    full = os.path.join(base, f)
                    z.write(full, os.path.relpath(full, a.out))


if __name__ == "__main__":
    main()
