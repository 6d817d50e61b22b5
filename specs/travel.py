"""A small travel agency: search flights, book seats and manage bookings.

This file is both a tool description (envfactory reads the type hints and docstrings) and a
real implementation: ``envfactory synth specs/travel.py --bind`` runs these methods as the
environment's behaviour instead of synthesized ones.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

SeatClass = Literal["economy", "premium", "business"]
BookingStatus = Literal["confirmed", "cancelled"]


@dataclass(frozen=True)
class Flight:
    """A scheduled flight."""

    id: str
    airline: str
    origin: str
    destination: str
    date: str
    price: float
    seats_left: int


@dataclass(frozen=True)
class Booking:
    """A passenger's seat on a flight."""

    id: str
    flight_id: str
    passenger_name: str
    seat_class: SeatClass
    status: BookingStatus


_FLIGHTS = [
    Flight("flight_0001", "Skyways", "JFK", "LAX", "2026-02-03", 249.0, 12),
    Flight("flight_0002", "BlueJet", "JFK", "LAX", "2026-02-03", 199.0, 2),
    Flight("flight_0003", "Aerolux", "SFO", "SEA", "2026-02-04", 129.0, 30),
    Flight("flight_0004", "Northwind Air", "BOS", "MIA", "2026-02-05", 179.0, 0),
]


class TravelAgency:
    """Flights and bookings of a travel agency."""

    def __init__(self) -> None:
        self._flights = {f.id: f for f in _FLIGHTS}
        self._bookings: dict[str, Booking] = {}

    def search_flights(
        self, origin: str | None = None, destination: str | None = None, date: str | None = None
    ) -> list[Flight]:
        """Find flights by route and date.

        Args:
            origin: IATA code of the departure airport, e.g. "JFK".
            destination: IATA code of the arrival airport.
            date: Departure date as YYYY-MM-DD.
        """
        return [
            f
            for f in self._flights.values()
            if (origin is None or f.origin == origin)
            and (destination is None or f.destination == destination)
            and (date is None or f.date == date)
        ]

    def get_flight(self, flight_id: str) -> Flight:
        """Get one flight.

        Args:
            flight_id: The flight's id.
        """
        return self._flights[flight_id]

    def book_flight(self, flight_id: str, passenger_name: str, seat_class: SeatClass = "economy") -> Booking:
        """Book a seat on a flight for a passenger.

        Args:
            flight_id: The flight to book.
            passenger_name: Full name of the passenger.
            seat_class: Cabin class.
        """
        flight = self._flights[flight_id]
        if flight.seats_left <= 0:
            raise ValueError(f"flight {flight_id} is full")
        self._flights[flight_id] = replace(flight, seats_left=flight.seats_left - 1)
        booking = Booking(
            f"booking_{len(self._bookings) + 1:04d}",
            flight_id,
            passenger_name,
            seat_class,
            "confirmed",
        )
        self._bookings[booking.id] = booking
        return booking

    def get_booking(self, booking_id: str) -> Booking:
        """Get a booking.

        Args:
            booking_id: The booking's id.
        """
        return self._bookings[booking_id]

    def list_bookings(self, passenger_name: str | None = None) -> list[Booking]:
        """List bookings, optionally those of one passenger.

        Args:
            passenger_name: Only this passenger's bookings.
        """
        return [b for b in self._bookings.values() if passenger_name in (None, b.passenger_name)]

    def cancel_booking(self, booking_id: str) -> Booking:
        """Cancel a booking and free its seat.

        Args:
            booking_id: The booking to cancel.
        """
        booking = self._bookings[booking_id]
        if booking.status == "cancelled":
            raise ValueError(f"booking {booking_id} is already cancelled")
        flight = self._flights[booking.flight_id]
        self._flights[flight.id] = replace(flight, seats_left=flight.seats_left + 1)
        self._bookings[booking_id] = replace(booking, status="cancelled")
        return self._bookings[booking_id]
