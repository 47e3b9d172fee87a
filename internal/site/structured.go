package site

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Bounds of structured-data parsing.
const (
	// MaxJSONLDBytes bounds one <script type="application/ld+json"> block.
	MaxJSONLDBytes = 256 << 10
	// maxJSONLDDepth bounds the nesting walked in a block.
	maxJSONLDDepth = 16
	// maxOrganizations bounds the organisations taken from one page.
	maxOrganizations = 8
	maxListValues    = 16
	maxFieldBytes    = 1000
)

// orgTypes are schema.org Organization and LocalBusiness and their
// subtypes (https://schema.org/Organization, "More specific Types", and
// https://schema.org/LocalBusiness), without the vocabulary's rarest
// leaves; a type not listed is not an organisation.
var orgTypes = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`Organization LocalBusiness Corporation NGO
		EducationalOrganization GovernmentOrganization MedicalOrganization NewsMediaOrganization
		SportsOrganization PerformingGroup Airline Consortium Cooperative FundingScheme LibrarySystem
		OnlineBusiness OnlineStore PoliticalParty ProjectOrganization ResearchOrganization
		SearchRescueOrganization WorkersUnion Project FundingAgency ResearchProject
		AnimalShelter ArchiveOrganization AutomotiveBusiness AutoBodyShop AutoDealer AutoPartsStore
		AutoRental AutoRepair AutoWash GasStation MotorcycleDealer MotorcycleRepair ChildCare
		Dentist DryCleaningOrLaundry EmergencyService FireStation Hospital PoliceStation
		EmploymentAgency EntertainmentBusiness AdultEntertainment AmusementPark ArtGallery Casino
		ComedyClub MovieTheater NightClub FinancialService AccountingService AutomatedTeller
		BankOrCreditUnion InsuranceAgency FoodEstablishment Bakery BarOrPub Brewery CafeOrCoffeeShop
		Distillery FastFoodRestaurant IceCreamShop Restaurant Winery GovernmentOffice PostOffice
		HealthAndBeautyBusiness BeautySalon DaySpa HairSalon HealthClub NailSalon TattooParlor
		HomeAndConstructionBusiness Electrician GeneralContractor HVACBusiness HousePainter
		Locksmith MovingCompany Plumber RoofingContractor InternetCafe LegalService Attorney Notary
		Library LodgingBusiness BedAndBreakfast Campground Hostel Hotel Motel Resort VacationRental
		MedicalBusiness CommunityHealth Dermatology DietNutrition Emergency Geriatric Gynecologic
		MedicalClinic Midwifery Nursing Obstetric Oncologic Optician Optometric Otolaryngologic
		Pediatric Pharmacy Physician Physiotherapy PlasticSurgery Podiatric PrimaryCare Psychiatric
		PublicHealth ProfessionalService RadioStation RealEstateAgent RecyclingCenter SelfStorage
		ShoppingCenter SportsActivityLocation BowlingAlley ExerciseGym GolfCourse PublicSwimmingPool
		SkiResort SportsClub StadiumOrArena TennisComplex Store BikeStore BookStore ClothingStore
		ComputerStore ConvenienceStore DepartmentStore ElectronicsStore Florist FurnitureStore
		GardenStore GroceryStore HardwareStore HobbyShop HomeGoodsStore JewelryStore LiquorStore
		MensClothingStore MobilePhoneStore MovieRentalStore MusicStore OfficeEquipmentStore
		OutletStore PawnShop PetStore ShoeStore SportingGoodsStore TireShop ToyStore WholesaleStore
		TelevisionStation TouristInformationCenter TravelAgency CollegeOrUniversity ElementarySchool
		HighSchool MiddleSchool Preschool School DanceGroup MusicGroup TheaterGroup SportsTeam
		VeterinaryCare MedicalOrganization DiagnosticLab`) {
		orgTypes[t] = true
	}
}

// thing is a schema.org item from either format: property name → values,
// each a string or a nested thing.
type thing map[string][]any

// types returns the item's schema.org type names without their prefix.
func (t thing) types() []string {
	var out []string
	for _, v := range t["@type"] {
		if s, ok := v.(string); ok {
			for _, f := range strings.Fields(s) {
				f = strings.TrimPrefix(strings.TrimPrefix(f, "https://schema.org/"), "http://schema.org/")
				out = append(out, f)
			}
		}
	}
	return out
}

// str returns the first string value of prop, or of the nested thing's
// "url" or "name" (an ImageObject logo, a Country address).
func (t thing) str(prop string) string {
	for _, v := range t[prop] {
		switch x := v.(type) {
		case string:
			if s := CleanText(x, maxFieldBytes); s != "" {
				return s
			}
		case thing:
			for _, k := range []string{"url", "name", "@id"} {
				if s := x.str(k); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

// strs returns the string values of prop.
func (t thing) strs(prop string) []string {
	var out []string
	for _, v := range t[prop] {
		var s string
		switch x := v.(type) {
		case string:
			s = CleanText(x, maxFieldBytes)
		case thing:
			s = x.str("name")
		}
		if s != "" && len(out) < maxListValues {
			out = append(out, s)
		}
	}
	return out
}

func (t thing) things(prop string) []thing {
	var out []thing
	for _, v := range t[prop] {
		if x, ok := v.(thing); ok {
			out = append(out, x)
		}
	}
	return out
}

// ParseJSONLD returns the schema.org organisations in one JSON-LD block
// (at most MaxJSONLDBytes; a longer or malformed block yields nothing),
// found anywhere in it: at the top, in @graph, or nested (a WebSite's
// publisher). pageURL resolves relative URLs; region reads phone numbers.
func ParseJSONLD(block []byte, pageURL *url.URL, region string) []Organization {
	if len(block) > MaxJSONLDBytes {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(block))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil // a page's broken markup is the page's; nothing to report
	}
	var orgs []Organization
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > maxJSONLDDepth || len(orgs) >= maxOrganizations {
			return
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e, depth+1)
			}
		case map[string]any:
			t := jsonThing(x, 0)
			if isOrg(t) {
				orgs = append(orgs, organization(t, FormatJSONLD, pageURL, region))
			}
			for k, e := range x {
				if k != "@context" {
					walk(e, depth+1)
				}
			}
		}
	}
	walk(v, 0)
	return orgs
}

// jsonThing converts a JSON-LD node into a thing, nested nodes included.
func jsonThing(m map[string]any, depth int) thing {
	t := thing{}
	for k, v := range m {
		t[k] = jsonValues(v, depth)
	}
	return t
}

func jsonValues(v any, depth int) []any {
	if depth > maxJSONLDDepth {
		return nil
	}
	switch x := v.(type) {
	case string:
		return []any{x}
	case json.Number:
		return []any{x.String()}
	case map[string]any:
		if val, ok := x["@value"]; ok {
			return jsonValues(val, depth+1)
		}
		return []any{jsonThing(x, depth+1)}
	case []any:
		var out []any
		for _, e := range x {
			if len(out) >= maxListValues {
				break
			}
			out = append(out, jsonValues(e, depth+1)...)
		}
		return out
	}
	return nil
}

func isOrg(t thing) bool {
	for _, ty := range t.types() {
		if orgTypes[ty] {
			return true
		}
	}
	return false
}

// organization reads the fields the document keeps.
func organization(t thing, f DataFormat, pageURL *url.URL, region string) Organization {
	o := Organization{
		Name: t.str("name"), LegalName: t.str("legalName"), Description: t.str("description"),
		URL: absURL(pageURL, t.str("url")), Logo: absURL(pageURL, t.str("logo")),
		Email:     cleanEmail(t.str("email")),
		Telephone: phoneValue(t.str("telephone"), region),
		Format:    f, Page: pageURL.String(),
	}
	for _, ty := range t.types() {
		if orgTypes[ty] {
			o.Type = ty
			break
		}
	}
	if a := addressOf(t); a != nil {
		o.Address = a
	}
	for _, cp := range t.things("contactPoint") {
		if len(o.ContactPoints) >= maxListValues {
			break
		}
		o.ContactPoints = append(o.ContactPoints, ContactPoint{
			ContactType: cp.str("contactType"), Telephone: phoneValue(cp.str("telephone"), region),
			Email: cleanEmail(cp.str("email")), AreaServed: cp.strs("areaServed"),
			AvailableLanguage: cp.strs("availableLanguage"),
		})
	}
	for _, s := range t.strs("sameAs") {
		if u := absURL(pageURL, s); u != "" {
			o.SameAs = append(o.SameAs, u)
		}
	}
	return o
}

// addressOf reads a PostalAddress value (a thing, or one string as the
// street address).
func addressOf(t thing) *PostalAddress {
	for _, v := range t["address"] {
		switch x := v.(type) {
		case thing:
			a := PostalAddress{
				StreetAddress: x.str("streetAddress"), PostalCode: x.str("postalCode"),
				Locality: x.str("addressLocality"), Region: x.str("addressRegion"), Country: x.str("addressCountry"),
			}
			if a != (PostalAddress{}) {
				return &a
			}
		case string:
			if s := CleanText(x, maxFieldBytes); s != "" {
				return &PostalAddress{StreetAddress: s}
			}
		}
	}
	return nil
}

// phoneValue is a telephone property in E.164 when it parses, else as
// given (cleaned).
func phoneValue(raw, region string) string {
	if raw == "" {
		return ""
	}
	if e, ok := NormalizePhone(strings.TrimPrefix(raw, "tel:"), region); ok {
		return e
	}
	return CleanText(raw, maxPhoneRaw)
}

func cleanEmail(s string) string {
	s = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "mailto:")))
	if !strings.Contains(s, "@") || len(s) > 254 {
		return ""
	}
	return s
}

// absURL resolves ref against base and keeps only http(s) URLs.
func absURL(base *url.URL, ref string) string {
	if ref == "" {
		return ""
	}
	u, err := base.Parse(strings.TrimSpace(ref))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// Microdata returns the schema.org organisations marked up with microdata
// (HTML §5.2) in doc: top-level items whose itemtype is an organisation,
// with their properties; nested items become nested things.
func Microdata(doc *html.Node, pageURL *url.URL) []Organization {
	var orgs []Organization
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if len(orgs) >= maxOrganizations {
			return
		}
		if n.Type == html.ElementNode && hasAttr(n, "itemscope") {
			t := microItem(n, 0)
			if isOrg(t) {
				orgs = append(orgs, organization(t, FormatMicrodata, pageURL, ""))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return orgs
}

// microItem reads the item n starts: its types and the properties of its
// descendants that belong to it (not to a nested item).
func microItem(n *html.Node, depth int) thing {
	t := thing{}
	if ty := attrOf(n, "itemtype"); ty != "" {
		t["@type"] = []any{ty}
	}
	if depth > maxJSONLDDepth {
		return t
	}
	var walk func(c *html.Node)
	walk = func(c *html.Node) {
		for ch := c.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type != html.ElementNode {
				continue
			}
			props := strings.Fields(attrOf(ch, "itemprop"))
			scope := hasAttr(ch, "itemscope")
			if len(props) > 0 {
				var v any
				if scope {
					v = microItem(ch, depth+1)
				} else {
					v = microValue(ch)
				}
				for _, p := range props {
					if len(t[p]) < maxListValues {
						t[p] = append(t[p], v)
					}
				}
			}
			if !scope {
				walk(ch)
			}
		}
	}
	walk(n)
	return t
}

// microValue is a property's value (HTML §5.2.4).
func microValue(n *html.Node) string {
	switch n.DataAtom {
	case atom.Meta:
		return attrOf(n, "content")
	case atom.A, atom.Link, atom.Area:
		return attrOf(n, "href")
	case atom.Img, atom.Audio, atom.Video, atom.Source, atom.Iframe, atom.Embed:
		return attrOf(n, "src")
	case atom.Time:
		if v := attrOf(n, "datetime"); v != "" {
			return v
		}
	}
	if v := attrOf(n, "content"); v != "" {
		return v
	}
	var b strings.Builder
	var text func(c *html.Node)
	text = func(c *html.Node) {
		if b.Len() > maxFieldBytes {
			return
		}
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			b.WriteByte(' ')
		}
		for ch := c.FirstChild; ch != nil; ch = ch.NextSibling {
			text(ch)
		}
	}
	text(n)
	return b.String()
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}
