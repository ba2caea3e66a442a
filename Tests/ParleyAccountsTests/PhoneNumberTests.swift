import ParleyCore
import Testing

/// E.164 (ITU-T E.164 §6): `+`, the country calling code, the national number; 15 digits at most.
@Suite struct PhoneNumberTests {
    @Test(arguments: [
        ("+1 (415) 555-2671", "+14155552671"),
        ("+14155552671", "+14155552671"),
        ("001 415 555 2671", "+14155552671"),
        ("+44 20 7946 0958", "+442079460958"),
        ("+44 (0)20 7946 0958", "+442079460958"),
        ("0044 20 7946 0958", "+442079460958"),
        ("+49 30 901820", "+4930901820"),
        ("+358 40 1234567", "+358401234567"),
        ("+39 06 6982 1234", "+390669821234"),     // Italy keeps the leading zero of fixed lines
        ("+7 912 345-67-89", "+79123456789"),
        ("+290 22222", "+29022222"),                // Saint Helena: four-digit national numbers and more
        (" +1.415.555.2671 ", "+14155552671"),
    ])
    func internationalNumbersAreReadWithoutACountry(_ written: String, _ e164: String) {
        #expect(PhoneNumber(written)?.e164 == e164)
    }

    @Test(arguments: [
        ("(415) 555-2671", "1", "+14155552671"),
        ("1 415 555 2671", "1", "+14155552671"),      // NANP's trunk prefix 1
        ("020 7946 0958", "44", "+442079460958"),     // the UK's trunk zero
        ("07700 900123", "44", "+447700900123"),
        ("8 912 345 67 89", "7", "+79123456789"),     // Russia's trunk prefix 8
        ("06 6982 1234", "39", "+390669821234"),      // Italy has no trunk prefix: the zero stays
        ("+44 20 7946 0958", "1", "+442079460958"),   // an international number ignores the default
    ])
    func nationalNumbersAreReadInTheDefaultCountry(_ written: String, _ country: String, _ e164: String) {
        #expect(PhoneNumber(written, defaultCountryCode: country)?.e164 == e164)
    }

    @Test(arguments: [
        "", "+", "hello", "415-555-2671",            // national, and no country to read it in
        "+1 415 555 2671 ext 3", "+1-800-FLOWERS",    // extensions and letters
        "+999 1234 5678",                             // 999 is no country calling code
        "+0 123 4567",                                // nor is anything starting with 0
        "+44 020 7946 0958",                          // the trunk zero written after the country code
        "+1 234 567 890 123 456",                     // 16 digits: longer than E.164 allows
        "+1 23",                                      // too short to be anyone's
        "+44 ２０ ７９４６ ０９５８",                        // full-width digits
        "++14155552671", "+1415+5552671",
    ])
    func whatIsNoNumberIsRefused(_ written: String) {
        #expect(PhoneNumber(written) == nil)
        #expect(PhoneNumber(written, defaultCountryCode: "1")?.e164 == nil || written == "415-555-2671")
    }

    @Test func aDefaultCountryThatIsNoneIsRefused() {
        #expect(PhoneNumber("415 555 2671", defaultCountryCode: "999") == nil)
        #expect(PhoneNumber("415 555 2671", defaultCountryCode: "") == nil)
    }

    @Test func countryCodesAreReadFromTheFront() {
        #expect(PhoneNumber("+14155552671")?.countryCode == "1")
        #expect(PhoneNumber("+442079460958")?.countryCode == "44")
        #expect(PhoneNumber("+358401234567")?.countryCode == "358")
    }
}
