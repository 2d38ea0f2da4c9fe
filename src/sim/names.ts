/** Deterministic German-looking names derived from a hash, so a million pins store no strings. */
import { pick } from './rng.js';

const STEMS = [
  'Schiller', 'Goethe', 'König', 'Linden', 'Rosen', 'Eichen', 'Mozart', 'Bach', 'Kepler', 'Hegel', 'Uhland', 'Mörike',
  'Neckar', 'Rems', 'Feuer', 'Wald', 'Berg', 'Tal', 'Kirch', 'Schloss', 'Markt', 'Brunnen', 'Mühl', 'Garten', 'Wiesen',
  'Hölderlin', 'Daimler', 'Bosch', 'Porsche', 'Olga', 'Charlotten', 'Katharinen', 'Wilhelm', 'Friedrich', 'Karl',
  'Sonnen', 'Stern', 'Birken', 'Ulmen', 'Kastanien', 'Weinberg', 'Hasen', 'Fuchs', 'Adler', 'Falken', 'Schwanen',
  'Hirsch', 'Löwen', 'Bären', 'Kronen', 'Rat', 'Post', 'Bahnhof', 'Hafen', 'Kloster', 'Burg', 'Stein', 'Hohen', 'Nord', 'Süd',
];
const SUFFIXES = ['straße', 'platz', 'weg', 'brücke', 'tor', 'halle', 'markt', 'park', 'allee', 'hof', 'steige', 'gasse'];
const DISTRICTS = [
  'Stuttgart', 'Bad Cannstatt', 'Feuerbach', 'Zuffenhausen', 'Vaihingen', 'Möhringen', 'Degerloch', 'Untertürkheim',
  'Obertürkheim', 'Wangen', 'Hedelfingen', 'Botnang', 'Weilimdorf', 'Mühlhausen', 'Münster', 'Sillenbuch', 'Plieningen',
  'Birkach', 'Stammheim', 'Hofen',
];
export const POI_CATEGORIES = [
  'Apotheke', 'Bäckerei', 'Museum', 'Schule', 'Kindergarten', 'Spielplatz', 'Kirche', 'Restaurant', 'Café', 'Bibliothek',
  'Rathaus', 'Arztpraxis', 'Supermarkt', 'Hotel', 'Kino', 'Theater', 'Schwimmbad', 'Sporthalle', 'Post', 'Tankstelle',
];
const FAMILY = ['Müller', 'Schmid', 'Weber', 'Fischer', 'Maier', 'Wagner', 'Becker', 'Hofmann', 'Braun', 'Keller', 'Bauer', 'Wolf'];

export function placeName(h: number): string {
  return `${pick(STEMS, h)}${pick(SUFFIXES, h >>> 8)}`;
}

export function districtName(h: number): string {
  return pick(DISTRICTS, h);
}

export function stopName(h: number): string {
  return `${districtName(h >>> 16)}, ${placeName(h)}`;
}

export function poiName(h: number): string {
  const cat = pick(POI_CATEGORIES, h >>> 4);
  return (h & 1) === 0 ? `${cat} am ${placeName(h >>> 9)}` : `${cat} ${pick(FAMILY, h >>> 12)}`;
}
