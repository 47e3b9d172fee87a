package fixtureweb

// language is the vocabulary of the pages of one language. All text is
// written for this package. Languages marked latin have only characters
// that windows-1252 can encode, so some of their sites are served in that
// charset to exercise the scraper's charset conversion.
type language struct {
	code   string
	weight int
	latin  bool
	// prefixLegal puts the legal form first ("株式会社さくら物流", "ООО
	// Волга"); sep joins the parts of a company name.
	prefixLegal bool
	sep         string

	home, about, contact, products, item string
	emailLabel, phoneLabel               string
	welcome                              string // fmt: company
	description                          string // fmt: company, trade
	phone                                string
	// nationalPhone is the same number as a local reader writes it;
	// imprint names the legal-notice page; address is the street, postal
	// code, city and country of every company in the language.
	nationalPhone, imprint string
	// cookies is the cookie banner's text.
	cookies string
	address [4]string

	brands    [][2]string // display name, ASCII slug
	trades    [][2]string
	legal     []string
	taglines  []string
	sentences []string
	mailboxes []string
}

// languages in a fixed order (part of what a seed means), weighted so that
// a little under half of the sites are not in English.
var languages = []language{
	{
		code: "en", weight: 56, latin: false, sep: " ",
		home: "Home", about: "About us", contact: "Contact", products: "What we do", item: "Service",
		emailLabel: "Email", phoneLabel: "Phone",
		welcome:       "Welcome to %s",
		description:   "%s is a small team offering %s to customers near and far.",
		phone:         "+1 212 555 0143",
		cookies:       "We use cookies to improve your experience. By continuing you accept our cookie policy.",
		nationalPhone: "(212) 555-0143", imprint: "Legal notice",
		address: [4]string{"100 Main Street", "10001", "New York", "US"},
		brands: [][2]string{
			{"Blue Harbor", "blueharbor"}, {"Oak & Iron", "oakiron"}, {"Northwind", "northwind"},
			{"Brightline", "brightline"}, {"Copper Kettle", "copperkettle"}, {"Silverleaf", "silverleaf"},
		},
		trades: [][2]string{
			{"Logistics", "logistics"}, {"Bakery", "bakery"}, {"Dental Care", "dental"},
			{"Roofing", "roofing"}, {"Consulting", "consulting"}, {"Print Shop", "print"},
		},
		legal: []string{"Ltd", "LLC", "Inc.", "& Sons"},
		taglines: []string{
			"Reliable since 1987", "Quality you can count on", "Local experts, fair prices",
			"Built around our customers",
		},
		sentences: []string{
			"We started as a family business and still answer every call ourselves.",
			"Our team plans each job carefully before a single tool is picked up.",
			"Customers in the region trust us for honest advice and clear quotes.",
			"Ask about our seasonal offers, which change every few months.",
			"Every project gets one contact person from the first visit to the invoice.",
			"We keep our workshop open on Saturdays for small repairs.",
			"Appointments are usually available within the same week.",
		},
		mailboxes: []string{"info", "hello", "sales"},
	},
	{
		code: "de", weight: 12, latin: true, sep: " ",
		home: "Start", about: "Über uns", contact: "Kontakt", products: "Leistungen", item: "Angebot",
		emailLabel: "E-Mail", phoneLabel: "Telefon",
		welcome:       "Willkommen bei %s",
		description:   "%s – Ihr Partner für %s in der Region, persönlich und zuverlässig.",
		phone:         "+49 30 1234567",
		cookies:       "Wir verwenden Cookies, um Ihnen das beste Erlebnis zu bieten. Mit der Nutzung stimmen Sie zu.",
		nationalPhone: "030 1234567", imprint: "Impressum",
		address: [4]string{"Hauptstraße 12", "10115", "Berlin", "DE"},
		brands: [][2]string{
			{"Nordlicht", "nordlicht"}, {"Sonnenberg", "sonnenberg"}, {"Eichenhof", "eichenhof"},
			{"Müller & Söhne", "mueller-soehne"}, {"Rheinblick", "rheinblick"}, {"Grünwald", "gruenwald"},
		},
		trades: [][2]string{
			{"Logistik", "logistik"}, {"Bäckerei", "baeckerei"}, {"Zahnarztpraxis", "zahnarzt"},
			{"Dachdeckerei", "dachdecker"}, {"Steuerberatung", "steuerberatung"}, {"Druckerei", "druckerei"},
		},
		legal: []string{"GmbH", "AG", "KG", "e.K."},
		taglines: []string{
			"Qualität seit 1987", "Ihr Fachbetrieb vor Ort", "Fair, schnell und gründlich",
			"Mit Leidenschaft für Ihr Projekt",
		},
		sentences: []string{
			"Wir sind ein Familienbetrieb und nehmen jeden Anruf noch selbst entgegen.",
			"Unser Team plant jeden Auftrag sorgfältig, bevor die Arbeit beginnt.",
			"Kunden aus der ganzen Region schätzen unsere ehrliche Beratung.",
			"Fragen Sie nach unseren saisonalen Angeboten, die regelmäßig wechseln.",
			"Jedes Projekt hat einen festen Ansprechpartner vom ersten Termin bis zur Rechnung.",
			"Samstags ist unsere Werkstatt für kleine Reparaturen geöffnet.",
			"Termine sind meist noch in derselben Woche möglich.",
		},
		mailboxes: []string{"info", "kontakt", "service"},
	},
	{
		code: "fr", weight: 7, latin: true, sep: " ",
		home: "Accueil", about: "À propos", contact: "Contact", products: "Nos services", item: "Offre",
		emailLabel: "Courriel", phoneLabel: "Téléphone",
		welcome:       "Bienvenue chez %s",
		description:   "%s, votre spécialiste en %s, à votre écoute depuis plus de trente ans.",
		phone:         "+33 1 23 45 67 89",
		cookies:       "Nous utilisons des cookies pour améliorer votre expérience. En continuant, vous les acceptez.",
		nationalPhone: "01 23 45 67 89", imprint: "Mentions légales",
		address: [4]string{"12 rue de la Paix", "75002", "Paris", "FR"},
		brands: [][2]string{
			{"Belle Rive", "bellerive"}, {"Le Moulin", "lemoulin"}, {"Clairefontaine", "clairefontaine"},
			{"Atelier Dupont", "atelierdupont"}, {"Soleil d'Or", "soleildor"},
		},
		trades: [][2]string{
			{"Boulangerie", "boulangerie"}, {"Transport", "transport"}, {"Cabinet dentaire", "dentaire"},
			{"Couverture", "couverture"}, {"Conseil", "conseil"},
		},
		legal: []string{"SARL", "SAS", "SA"},
		taglines: []string{
			"La qualité depuis 1987", "Des artisans près de chez vous", "Un savoir-faire reconnu",
		},
		sentences: []string{
			"Nous sommes une entreprise familiale et répondons nous-mêmes à chaque appel.",
			"Notre équipe prépare chaque chantier avec soin avant de commencer.",
			"Nos clients apprécient nos conseils honnêtes et nos devis clairs.",
			"Demandez nos offres de saison, renouvelées tous les trois mois.",
			"Un seul interlocuteur vous accompagne du premier rendez-vous à la facture.",
			"L'atelier reste ouvert le samedi matin pour les petites réparations.",
		},
		mailboxes: []string{"contact", "info", "bonjour"},
	},
	{
		code: "es", weight: 6, latin: true, sep: " ",
		home: "Inicio", about: "Quiénes somos", contact: "Contacto", products: "Servicios", item: "Oferta",
		emailLabel: "Correo", phoneLabel: "Teléfono",
		welcome:       "Bienvenidos a %s",
		description:   "%s: especialistas en %s con atención cercana y presupuestos claros.",
		phone:         "+34 912 345 678",
		cookies:       "Usamos cookies para mejorar su experiencia. Si continúa, acepta nuestra política de cookies.",
		nationalPhone: "912 345 678", imprint: "Aviso legal",
		address: [4]string{"Calle Mayor 5", "28013", "Madrid", "ES"},
		brands: [][2]string{
			{"Sol y Mar", "solymar"}, {"La Encina", "laencina"}, {"Hermanos Ruiz", "hermanosruiz"},
			{"Costa Verde", "costaverde"}, {"El Faro", "elfaro"},
		},
		trades: [][2]string{
			{"Panadería", "panaderia"}, {"Logística", "logistica"}, {"Clínica dental", "dental"},
			{"Reformas", "reformas"}, {"Asesoría", "asesoria"},
		},
		legal: []string{"S.L.", "S.A."},
		taglines: []string{
			"Calidad desde 1987", "Profesionales de confianza", "Cerca de ti, siempre",
		},
		sentences: []string{
			"Somos una empresa familiar y atendemos cada llamada personalmente.",
			"Nuestro equipo planifica cada trabajo con cuidado antes de empezar.",
			"Los clientes de la zona confían en nuestro asesoramiento honesto.",
			"Pregunte por nuestras ofertas de temporada, que cambian cada pocos meses.",
			"Cada proyecto tiene una sola persona de contacto de principio a fin.",
			"El taller abre los sábados por la mañana para pequeñas reparaciones.",
		},
		mailboxes: []string{"info", "hola", "contacto"},
	},
	{
		code: "it", weight: 3, latin: true, sep: " ",
		home: "Home", about: "Chi siamo", contact: "Contatti", products: "Servizi", item: "Offerta",
		emailLabel: "Email", phoneLabel: "Telefono",
		welcome:       "Benvenuti da %s",
		description:   "%s offre %s di qualità con la cura di una bottega artigiana.",
		phone:         "+39 02 1234 5678",
		cookies:       "Utilizziamo i cookie per migliorare la tua esperienza. Continuando accetti la nostra politica.",
		nationalPhone: "02 1234 5678", imprint: "Note legali",
		address: [4]string{"Via Roma 10", "20121", "Milano", "IT"},
		brands: [][2]string{
			{"Bella Vista", "bellavista"}, {"Il Frantoio", "ilfrantoio"}, {"Fratelli Rossi", "fratellirossi"},
			{"Monte Verde", "monteverde"},
		},
		trades: [][2]string{
			{"Panificio", "panificio"}, {"Trasporti", "trasporti"}, {"Studio dentistico", "dentistico"},
			{"Consulenza", "consulenza"},
		},
		legal: []string{"S.r.l.", "S.p.A.", "S.n.c."},
		taglines: []string{
			"Qualità dal 1987", "Artigiani di fiducia", "La tradizione che guarda avanti",
		},
		sentences: []string{
			"Siamo un'azienda di famiglia e rispondiamo personalmente a ogni chiamata.",
			"Il nostro team prepara ogni lavoro con attenzione prima di iniziare.",
			"I clienti della zona apprezzano i nostri consigli onesti.",
			"Chiedete delle offerte di stagione, che cambiano ogni pochi mesi.",
			"Ogni progetto ha un unico referente dal primo incontro alla fattura.",
		},
		mailboxes: []string{"info", "ciao", "commerciale"},
	},
	{
		code: "nl", weight: 3, latin: true, sep: " ",
		home: "Home", about: "Over ons", contact: "Contact", products: "Diensten", item: "Aanbod",
		emailLabel: "E-mail", phoneLabel: "Telefoon",
		welcome:       "Welkom bij %s",
		description:   "%s: uw vakspecialist in %s, persoonlijk en betrouwbaar.",
		phone:         "+31 20 123 4567",
		cookies:       "Wij gebruiken cookies om uw ervaring te verbeteren. Door verder te gaan gaat u akkoord.",
		nationalPhone: "020 123 4567", imprint: "Colofon",
		address: [4]string{"Damrak 1", "1012 LG", "Amsterdam", "NL"},
		brands: [][2]string{
			{"De Molen", "demolen"}, {"Zeewind", "zeewind"}, {"Van Dijk", "vandijk"}, {"Lindehof", "lindehof"},
		},
		trades: [][2]string{
			{"Bakkerij", "bakkerij"}, {"Transport", "transport"}, {"Tandartspraktijk", "tandarts"},
			{"Dakwerken", "dakwerken"},
		},
		legal: []string{"B.V.", "V.O.F."},
		taglines: []string{
			"Vakwerk sinds 1987", "Uw specialist in de buurt", "Eerlijk advies, scherpe prijzen",
		},
		sentences: []string{
			"Wij zijn een familiebedrijf en nemen elke oproep nog zelf aan.",
			"Ons team bereidt elke klus zorgvuldig voor.",
			"Klanten uit de regio waarderen ons eerlijke advies.",
			"Vraag naar onze seizoensaanbiedingen, die regelmatig wisselen.",
			"Elk project heeft één vast aanspreekpunt van begin tot eind.",
		},
		mailboxes: []string{"info", "contact"},
	},
	{
		code: "pl", weight: 3, latin: false, sep: " ",
		home: "Strona główna", about: "O nas", contact: "Kontakt", products: "Usługi", item: "Oferta",
		emailLabel: "E-mail", phoneLabel: "Telefon",
		welcome:       "Witamy w %s",
		description:   "%s – rzetelne usługi w zakresie: %s, od ponad trzydziestu lat.",
		phone:         "+48 22 123 45 67",
		cookies:       "Używamy plików cookie, aby poprawić działanie strony. Kontynuując, akceptujesz je.",
		nationalPhone: "22 123 45 67", imprint: "Nota prawna",
		address: [4]string{"ul. Marszałkowska 1", "00-624", "Warszawa", "PL"},
		brands: [][2]string{
			{"Złoty Kłos", "zlotyklos"}, {"Nowak i Synowie", "nowak"}, {"Wisła", "wisla"}, {"Zielony Dąb", "zielonydab"},
		},
		trades: [][2]string{
			{"Piekarnia", "piekarnia"}, {"Transport", "transport"}, {"Gabinet stomatologiczny", "stomatolog"},
			{"Doradztwo", "doradztwo"},
		},
		legal: []string{"sp. z o.o.", "S.A.", "s.c."},
		taglines: []string{
			"Jakość od 1987 roku", "Fachowcy z sąsiedztwa", "Uczciwie i terminowo",
		},
		sentences: []string{
			"Jesteśmy firmą rodzinną i sami odbieramy każdy telefon.",
			"Nasz zespół starannie planuje każde zlecenie.",
			"Klienci z regionu cenią naszą uczciwą obsługę.",
			"Zapytaj o oferty sezonowe, które zmieniamy co kilka miesięcy.",
			"Każdy projekt prowadzi jedna osoba kontaktowa od początku do końca.",
		},
		mailboxes: []string{"biuro", "kontakt"},
	},
	{
		code: "pt", weight: 3, latin: true, sep: " ",
		home: "Início", about: "Sobre nós", contact: "Contato", products: "Serviços", item: "Oferta",
		emailLabel: "E-mail", phoneLabel: "Telefone",
		welcome:       "Bem-vindo à %s",
		description:   "%s: especialistas em %s com atendimento próximo e preços justos.",
		phone:         "+351 21 123 4567",
		cookies:       "Utilizamos cookies para melhorar a sua experiência. Ao continuar, aceita a nossa política.",
		nationalPhone: "21 123 4567", imprint: "Aviso legal",
		address: [4]string{"Rua Augusta 100", "1100-053", "Lisboa", "PT"},
		brands: [][2]string{
			{"Boa Vista", "boavista"}, {"Casa Azul", "casaazul"}, {"Irmãos Costa", "irmaoscosta"}, {"Ribeira", "ribeira"},
		},
		trades: [][2]string{
			{"Padaria", "padaria"}, {"Transportes", "transportes"}, {"Clínica dentária", "dentaria"},
			{"Consultoria", "consultoria"},
		},
		legal: []string{"Lda.", "S.A."},
		taglines: []string{
			"Qualidade desde 1987", "Profissionais de confiança", "Perto de si",
		},
		sentences: []string{
			"Somos uma empresa familiar e atendemos cada chamada pessoalmente.",
			"A nossa equipa planeia cada trabalho com cuidado.",
			"Os clientes da região confiam nos nossos conselhos honestos.",
			"Pergunte pelas ofertas da estação, que mudam a cada poucos meses.",
			"Cada projeto tem uma única pessoa de contacto do início ao fim.",
		},
		mailboxes: []string{"geral", "info", "ola"},
	},
	{
		code: "ja", weight: 3, latin: false, prefixLegal: true, sep: "",
		home: "ホーム", about: "会社概要", contact: "お問い合わせ", products: "事業内容", item: "サービス",
		emailLabel: "メール", phoneLabel: "電話",
		welcome:       "%sへようこそ",
		description:   "%sは地域のお客様に%sをお届けしています。",
		phone:         "+81 3-1234-5678",
		cookies:       "当サイトではクッキーを使用しています。引き続き閲覧すると同意したものとみなされます。",
		nationalPhone: "03-1234-5678", imprint: "会社情報",
		address: [4]string{"千代田区丸の内1-1", "100-0005", "東京都", "JP"},
		brands: [][2]string{
			{"さくら", "sakura"}, {"青空", "aozora"}, {"山田", "yamada"}, {"みなと", "minato"},
		},
		trades: [][2]string{
			{"物流", "butsuryu"}, {"ベーカリー", "bakery"}, {"歯科医院", "shika"}, {"印刷", "insatsu"},
		},
		legal: []string{"株式会社", "有限会社"},
		taglines: []string{
			"創業1987年", "地域とともに", "確かな品質をお届けします",
		},
		sentences: []string{
			"私たちは家族経営の会社です。",
			"すべてのご依頼を丁寧に計画してから作業を始めます。",
			"地域のお客様から信頼をいただいています。",
			"季節ごとのキャンペーンもぜひご覧ください。",
			"担当者が最初から最後までご案内します。",
		},
		mailboxes: []string{"info", "support"},
	},
	{
		code: "ru", weight: 3, latin: false, prefixLegal: true, sep: " ",
		home: "Главная", about: "О компании", contact: "Контакты", products: "Услуги", item: "Предложение",
		emailLabel: "Почта", phoneLabel: "Телефон",
		welcome:       "Добро пожаловать в %s",
		description:   "%s — надёжные услуги в области «%s» для частных и корпоративных клиентов.",
		phone:         "+7 495 123-45-67",
		cookies:       "Мы используем файлы cookie. Продолжая пользоваться сайтом, вы соглашаетесь с этим.",
		nationalPhone: "8 (495) 123-45-67", imprint: "Реквизиты",
		address: [4]string{"ул. Тверская, 1", "125009", "Москва", "RU"},
		brands: [][2]string{
			{"Северный ветер", "severveter"}, {"Берёзка", "berezka"}, {"Волга", "volga"}, {"Звезда", "zvezda"},
		},
		trades: [][2]string{
			{"Логистика", "logistika"}, {"Пекарня", "pekarnya"}, {"Стоматология", "stomatologiya"}, {"Консалтинг", "konsalting"},
		},
		legal: []string{"ООО", "АО"},
		taglines: []string{
			"Качество с 1987 года", "Работаем для вас", "Честно и в срок",
		},
		sentences: []string{
			"Мы семейная компания и сами отвечаем на каждый звонок.",
			"Наша команда тщательно планирует каждый заказ.",
			"Клиенты ценят наши честные советы и понятные цены.",
			"Спрашивайте о сезонных предложениях, они меняются каждые несколько месяцев.",
			"У каждого проекта один контактный менеджер от начала до конца.",
		},
		mailboxes: []string{"info", "sales"},
	},
}
