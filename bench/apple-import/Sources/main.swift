// Reading rate of an Apple Health export.xml three ways, each in this process alone (run it once
// per mode so peak RSS is that mode's): libxml2's streaming xmlTextReader (what the importer
// uses), Foundation's XMLParser (on Linux a libxml2 SAX parser behind a delegate), and the
// importer's whole mapping (AppleHealthExport: elements to samples, no server).
import AppleHealthImport
import CLibXML2
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

let arguments = CommandLine.arguments
guard arguments.count == 3, ["libxml2", "xmlparser", "export"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: apple-import-bench libxml2|xmlparser|export EXPORT\n".utf8))
    exit(2)
}
let path = arguments[2]

/// Counts elements and attribute values decoded to Swift strings, as the importer needs them.
final class Counter: NSObject, XMLParserDelegate {
    var elements = 0
    var attributes = 0
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        elements += 1
        self.attributes += attributes.count
    }
}

let started = Date()
var elements = 0
switch arguments[1] {
case "libxml2":
    guard let reader = xmlReaderForFile(path, nil, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue)) else { exit(1) }
    var attributes = 0
    while xmlTextReaderRead(reader) == 1 {
        guard xmlTextReaderNodeType(reader) == Int32(XML_READER_TYPE_ELEMENT.rawValue) else { continue }
        elements += 1
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            attributes += String(cString: xmlTextReaderConstValue(reader)).isEmpty ? 0 : 1
        }
    }
    xmlFreeTextReader(reader)
case "xmlparser":
    guard let stream = InputStream(fileAtPath: path) else { exit(1) }
    let parser = XMLParser(stream: stream)
    let counter = Counter()
    parser.delegate = counter
    guard parser.parse() else { print("XMLParser: \(parser.parserError.map { "\($0)" } ?? "failed")"); exit(1) }
    elements = counter.elements
case _:
    let export = try AppleHealthExport(archive: ExportArchive(path: path), force: true)
    while try export.next() != nil { elements += 1 }
}
let seconds = Date().timeIntervalSince(started)
let bytes = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
print(String(format: "%@\t%d\t%.2f\t%.1f\t%.1f", arguments[1], elements, seconds, bytes / 1_048_576 / seconds,
             Double(usage.ru_maxrss) / 1024))
