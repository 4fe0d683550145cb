"""Built-in content of the simulated apps (the project's own, invented records).

Users' content comes from the PAIR pipeline; these records fill a phone that has no user
profile. The same seed always gives the same selection and order.
"""

from __future__ import annotations

import hashlib

import numpy as np

SONGS = (
    ("Paper Lanterns", "The Quiet Harbor", "Low Tide", "indie"),
    ("Glass Mountains", "Ayla Brenner", "North Light", "folk"),
    ("Midnight Tram", "Neon Orchard", "City Lines", "synthpop"),
    ("Copper Sun", "Desert Choir", "Mirage", "rock"),
    ("Slow Rivers", "Mara Okafor", "Estuary", "soul"),
    ("Static Hearts", "Velvet Signal", "Transmit", "electronic"),
    ("Orchard Road", "The Lamplighters", "Avenues", "indie"),
    ("Weightless", "Juno Vale", "Orbit", "ambient"),
    ("Rainy Night in Lisbon", "Caro Mendes", "Saudade", "jazz"),
    ("Kite Strings", "Little Atlas", "Paper Sky", "pop"),
    ("Harbor Lights", "Sea of Lanterns", "Coastline", "folk"),
    ("Neon Dusk", "Polychrome", "Afterglow", "synthwave"),
    ("Firefly Summer", "Ada Quist", "June", "pop"),
    ("Iron & Wine Cellar", "Basement Tapes", "Vintage", "blues"),
    ("Blue Hour", "Nils Aaland", "Nocturnes", "classical"),
    ("Cloud Atlas Waltz", "The Cartographers", "Maps", "indie"),
    ("Lighthouse Keeper", "Oren Falk", "Beacon", "folk"),
    ("Velvet Morning", "Sunday Tapes", "Brunch", "lofi"),
    ("Run the City", "Metro Kings", "Uptown", "hiphop"),
    ("Gravity Well", "Stellar Drift", "Parallax", "electronic"),
    ("Wildflower", "Maya Linde", "Meadow", "acoustic"),
    ("Ember Glow", "Hearthstone", "Winter", "folk"),
    ("Tidal Pull", "Moon Jellies", "Undertow", "dreampop"),
    ("Late Checkout", "Hotel Lobby", "Room Service", "lofi"),
    ("Morning Espresso", "Cafe Noir", "Roast", "jazz"),
    ("Electric Garden", "Botanic Circuit", "Photosynthesis", "electronic"),
    ("Northern Lines", "Fjord Echo", "Aurora", "ambient"),
    ("Sugar Rush", "Candy Static", "Arcade", "pop"),
    ("Thunder Road Trip", "Highway Saints", "Mile Markers", "rock"),
    ("Moonlit Sonata No. 2", "Ilse Varga", "Études", "classical"),
    ("Saltwater Dreams", "Coral Coast", "Reef", "surf"),
    ("Second Wind", "Relay Team", "Finish Line", "rock"),
    ("Quiet Library", "Page Turners", "Chapters", "lofi"),
    ("Golden Hour Drive", "Sunset Boulevardiers", "Dashboard", "pop"),
    ("Snowfall Letters", "Winter Post", "Envelopes", "acoustic"),
    ("Bassline Theory", "Low End Society", "Frequencies", "dance"),
    ("Marigold", "Priya Raman", "Festival", "world"),
    ("Stargazer", "Observatory", "Telescope", "ambient"),
    ("Coffee Shop Rain", "Drizzle Days", "Umbrella", "lofi"),
    ("Desert Highway", "Mirage Riders", "Dust", "country"),
    ("Paper Planes Over Tokyo", "Kenji Arai", "Skyline", "citypop"),
    ("Violet Static", "Radio Bloom", "Wavelength", "shoegaze"),
    ("Open Water", "Swim Club", "Lanes", "indie"),
    ("Salsa de Medianoche", "Orquesta Luna", "Baile", "latin"),
    ("Deep Focus", "Mindful Machines", "Flow State", "ambient"),
    ("Hometown Parade", "Brass Alley", "Main Street", "jazz"),
)

PLAYLISTS = (
    ("Morning Coffee", "Warm acoustic starts", ("acoustic", "jazz", "lofi")),
    ("Deep Focus", "Keep calm and concentrate", ("ambient", "classical", "lofi")),
    ("Night Drive", "Synths for empty roads", ("synthwave", "synthpop", "electronic")),
    ("Indie Mix", "Fresh indie picks", ("indie", "dreampop", "shoegaze")),
    ("Rainy Day Jazz", "Soft jazz for grey skies", ("jazz", "soul", "blues")),
    ("Workout Energy", "Push harder", ("rock", "hiphop", "dance")),
    ("Chill Hits", "Kick back to the best new chill", ("pop", "lofi", "dreampop")),
    ("Folk & Friends", "Stories and strings", ("folk", "acoustic", "country")),
    ("World Rhythms", "Around the globe", ("world", "latin", "citypop")),
    ("Sleep", "Gentle ambient for rest", ("ambient", "classical")),
)

CONTACTS = (
    ("Li Wei", "Shanghai", "Keep moving forward."),
    ("Emma Schultz", "Berlin", "Coffee first."),
    ("Carlos Ruiz", "Madrid", "Football and photography"),
    ("Aiko Tanaka", "Osaka", "Bread is life"),
    ("Noah Williams", "Toronto", "Building things."),
    ("Fatima Zahra", "Casablanca", "Reading, always."),
    ("Oliver Smith", "London", "On the next train"),
    ("Chen Jing", "Hangzhou", "Tea > coffee"),
    ("Sofia Rossi", "Milan", "Design is how it works"),
    ("Mateus Silva", "Lisbon", "Surf's up"),
    ("Priya Patel", "Bengaluru", "Shipping code"),
    ("Zhang Min", "Beijing", "Hiking on weekends"),
    ("Lucas Martin", "Lyon", "Cooking experiments"),
    ("Hana Kim", "Seoul", "Plants and cats"),
    ("Family Group", "", ""),
    ("Project Team", "", ""),
)

# Conversation i is with contact i; the last two are the group chats.
CONVERSATIONS = (
    ("Are we still on for lunch tomorrow?", "Yes! 12:30 at the noodle place?", "Perfect",
     "Should I book a table?", "Good idea, for two", "Booked under my name", "See you there"),
    ("Did you see the match last night?", "What a finish!", "That last-minute goal",
     "I almost dropped my phone", "Rematch next month, tickets?", "Count me in"),
    ("Can you send me the slides?", "Sent them to your email", "Got it, thanks"),
    ("Happy birthday!!", "Thank you so much!", "Any plans tonight?",
     "Dinner with family, then cake", "Enjoy! Save me a slice"),
    ("The package arrived", "Great, let me know if it fits"),
    ("Running 10 minutes late", "No worries"),
    ("Meeting moved to 3pm", "Noted"),
    ("Want to go hiking on Saturday?", "Sounds great, which trail?", "The ridge loop, 12 km",
     "Start at 8?", "8 is perfect", "I'll bring snacks", "I'll drive"),
    ("New cat photos please", "Here she is, asleep again", "Adorable"),
    ("Let's catch up soon", "Coffee next week?", "Tuesday?", "Tuesday it is"),
    ("Can you water my plants while I'm away?", "Of course! How often?", "Every two days"),
    ("Thanks for the book recommendation", "Did you like it?", "Finished it in two days"),
    ("Are you coming to the reunion?", "Wouldn't miss it"),
    ("Your order is ready for pickup", "Coming in 20 minutes"),
    ("Mum: Dinner at 7 on Sunday", "We'll be there", "Dad: bring the photos from the trip",
     "Will do", "Grandma is coming too", "Lovely!", "Should we bring dessert?",
     "Yes, the apple cake please", "Deal", "Parking is free on Sundays", "Great",
     "Leaving at 6:30", "Drive safe", "See you soon"),
    ("Standup notes are in the doc", "Thanks, reviewing now", "Release is Thursday",
     "QA found two bugs in checkout", "On it", "Fixed one, the other needs design",
     "Design review at 2", "Invite sent", "Can we push the release to Friday?",
     "Friday works", "Updating the plan", "Thanks all"),
)

MOMENTS = (
    "Finally finished the mountain trail - the view was worth every step.",
    "Homemade sourdough, attempt number five. Getting there!",
    "New plants for the balcony garden",
    "Conference day two. So many good talks.",
    "Sunset by the river tonight.",
    "Our team shipped the release! Proud of everyone.",
    "Trying a new ramen place downtown. 10/10.",
    "First snow of the year",
    "Weekend market finds: old records and fresh peaches.",
    "Marathon training, week 6. Legs say no, heart says yes.",
)


def rng(seed: int, name: str) -> np.random.Generator:
    """A generator for one app's content, stable for (seed, name) in every process."""
    digest = hashlib.blake2s(name.encode("utf-8"), digest_size=8).digest()
    return np.random.default_rng([seed, int.from_bytes(digest, "little")])
