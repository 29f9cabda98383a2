/// Countries and cities the seed data draws from: real names, real centre coordinates,
/// and street names in each place's own script.
enum CountryCatalog {
    struct City: Sendable {
        let name: String
        let country: String
        let lat: Double
        let lng: Double
        let streets: [String]
        let postalPrefix: String
        /// Library names in the local language; empty means the shared English names.
        let localNames: [String]
    }

    static let names: [String: String] = [
        "DE": "Germany", "IT": "Italy", "FR": "France", "GB": "United Kingdom", "ES": "Spain",
        "PT": "Portugal", "NL": "Netherlands", "BE": "Belgium", "AT": "Austria", "CH": "Switzerland",
        "SE": "Sweden", "DK": "Denmark", "PL": "Poland", "CZ": "Czechia", "IE": "Ireland",
        "US": "United States", "CA": "Canada", "JP": "Japan", "GR": "Greece", "IL": "Israel",
        "EG": "Egypt", "KR": "Korea, Republic of", "AU": "Australia", "NZ": "New Zealand",
    ]

    static func name(of code: String) -> String { names[code] ?? code }

    /// The flag emoji of an ISO 3166-1 alpha-2 code, from regional indicator symbols.
    static func flag(of code: String) -> String {
        var flag = ""
        for scalar in code.uppercased().unicodeScalars where ("A"..."Z").contains(scalar) {
            if let indicator = Unicode.Scalar(0x1F1E6 + scalar.value - 65) { flag.unicodeScalars.append(indicator) }
        }
        return flag
    }

    static let cities: [City] = [
        City(
            name: "Berlin", country: "DE", lat: 52.5200, lng: 13.4050,
            streets: ["Torstrasse", "Kastanienallee", "Oranienstrasse", "Bergmannstrasse", "Karl-Marx-Allee"], postalPrefix: "10", localNames: []),
        City(
            name: "Munich", country: "DE", lat: 48.1372, lng: 11.5756, streets: ["Sendlinger Strasse", "Leopoldstrasse", "Landsberger Strasse"],
            postalPrefix: "80", localNames: []),
        City(name: "Hamburg", country: "DE", lat: 53.5511, lng: 9.9937, streets: ["Schanzenstrasse", "Eppendorfer Weg"], postalPrefix: "20", localNames: []),
        City(
            name: "Florence", country: "IT", lat: 43.7696, lng: 11.2558, streets: ["Via Ghibellina", "Via dei Serragli", "Borgo Pinti"], postalPrefix: "501",
            localNames: []),
        City(
            name: "Milan", country: "IT", lat: 45.4642, lng: 9.1900, streets: ["Corso Buenos Aires", "Via Torino", "Via Padova"], postalPrefix: "201",
            localNames: []),
        City(
            name: "Rome", country: "IT", lat: 41.9028, lng: 12.4964, streets: ["Via Cavour", "Via del Pigneto", "Viale Trastevere"], postalPrefix: "001",
            localNames: []),
        City(
            name: "Paris", country: "FR", lat: 48.8566, lng: 2.3522, streets: ["Rue Oberkampf", "Rue de Belleville", "Rue Mouffetard"], postalPrefix: "750",
            localNames: []),
        City(
            name: "Lyon", country: "FR", lat: 45.7640, lng: 4.8357, streets: ["Rue de la République", "Montée de la Grande Côte"], postalPrefix: "690",
            localNames: []),
        City(
            name: "London", country: "GB", lat: 51.5074, lng: -0.1278, streets: ["Columbia Road", "Brick Lane", "Stroud Green Road"], postalPrefix: "E",
            localNames: []),
        City(name: "Edinburgh", country: "GB", lat: 55.9533, lng: -3.1883, streets: ["Leith Walk", "Bruntsfield Place"], postalPrefix: "EH", localNames: []),
        City(
            name: "Madrid", country: "ES", lat: 40.4168, lng: -3.7038, streets: ["Calle de Embajadores", "Calle de Fuencarral"], postalPrefix: "280",
            localNames: []),
        City(name: "Barcelona", country: "ES", lat: 41.3874, lng: 2.1686, streets: ["Carrer de Verdi", "Carrer de Blai"], postalPrefix: "080", localNames: []),
        City(name: "Lisbon", country: "PT", lat: 38.7223, lng: -9.1393, streets: ["Rua da Rosa", "Rua de São Bento"], postalPrefix: "1200", localNames: []),
        City(
            name: "Amsterdam", country: "NL", lat: 52.3676, lng: 4.9041, streets: ["Javastraat", "Haarlemmerdijk", "Ferdinand Bolstraat"], postalPrefix: "10",
            localNames: []),
        City(name: "Brussels", country: "BE", lat: 50.8503, lng: 4.3517, streets: ["Rue Haute", "Chaussée de Wavre"], postalPrefix: "10", localNames: []),
        City(name: "Vienna", country: "AT", lat: 48.2082, lng: 16.3738, streets: ["Neubaugasse", "Praterstrasse"], postalPrefix: "10", localNames: []),
        City(name: "Zurich", country: "CH", lat: 47.3769, lng: 8.5417, streets: ["Langstrasse", "Seefeldstrasse"], postalPrefix: "80", localNames: []),
        City(name: "Stockholm", country: "SE", lat: 59.3293, lng: 18.0686, streets: ["Götgatan", "Hornsgatan"], postalPrefix: "11", localNames: []),
        City(name: "Copenhagen", country: "DK", lat: 55.6761, lng: 12.5683, streets: ["Jægersborggade", "Istedgade"], postalPrefix: "2", localNames: []),
        City(name: "Kraków", country: "PL", lat: 50.0647, lng: 19.9450, streets: ["ulica Józefa", "ulica Długa"], postalPrefix: "31", localNames: []),
        City(name: "Prague", country: "CZ", lat: 50.0755, lng: 14.4378, streets: ["Vinohradská", "Křižíkova"], postalPrefix: "1", localNames: []),
        City(name: "Dublin", country: "IE", lat: 53.3498, lng: -6.2603, streets: ["Camden Street", "Manor Street"], postalPrefix: "D0", localNames: []),
        City(
            name: "Portland", country: "US", lat: 45.5152, lng: -122.6784, streets: ["SE Hawthorne Blvd", "NE Alberta St", "N Mississippi Ave"],
            postalPrefix: "972", localNames: []),
        City(name: "Toronto", country: "CA", lat: 43.6532, lng: -79.3832, streets: ["Queen St W", "Roncesvalles Ave"], postalPrefix: "M6", localNames: []),
        City(
            name: "Tokyo", country: "JP", lat: 35.6762, lng: 139.6503, streets: ["下北沢", "谷中", "吉祥寺本町"], postalPrefix: "15",
            localNames: ["まちかど文庫", "小さな図書館", "本の交換箱"]),
        City(
            name: "Athens", country: "GR", lat: 37.9838, lng: 23.7275, streets: ["Οδός Ερμού", "Οδός Αθηνάς"], postalPrefix: "10",
            localNames: ["Μικρή Βιβλιοθήκη", "Γωνιά των Βιβλίων"]),
        City(
            name: "Tel Aviv", country: "IL", lat: 32.0853, lng: 34.7818, streets: ["רחוב דיזנגוף", "שדרות רוטשילד"], postalPrefix: "6",
            localNames: ["ספרייה קטנה", "פינת הספרים"]),
        City(
            name: "Cairo", country: "EG", lat: 30.0444, lng: 31.2357, streets: ["شارع طلعت حرب", "شارع قصر النيل"], postalPrefix: "11",
            localNames: ["مكتبة الحي", "ركن الكتب"]),
        City(name: "Seoul", country: "KR", lat: 37.5665, lng: 126.9780, streets: ["연남로", "성수이로"], postalPrefix: "04", localNames: ["작은 도서관", "책 나눔 상자"]),
        City(name: "Melbourne", country: "AU", lat: -37.8136, lng: 144.9631, streets: ["Brunswick St", "Smith St"], postalPrefix: "30", localNames: []),
        City(name: "Wellington", country: "NZ", lat: -41.2866, lng: 174.7756, streets: ["Cuba Street", "Aro Street"], postalPrefix: "60", localNames: []),
    ]

    static let libraryNames = [
        "Corner Books", "Little Free Library", "Neighborhood Book Nook", "Garden Book Exchange",
        "Sunrise Library Box", "Porch Library", "Book Swap Shelf", "The Reading Post",
        "Bus Stop Books", "Community Bookcase", "Phone Box Library", "Tiny Library",
        "Park Gate Books", "Story Cupboard", "Bench Library", "Library on the Corner",
    ]
}
